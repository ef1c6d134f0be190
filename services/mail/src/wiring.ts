import path from 'node:path';
import { ensureMailIndexes } from './adapters/indexes';
import {
  outboxMetrics,
  type Closer,
  type EventPublisher,
  type Logger,
  type Metrics,
  type OutboxObserver,
  type MailEnvelopeKey,
  type ProcessedEvents,
  type ServiceStore,
} from '@baas/common';
import type { MailDeps, MailLimits, RetryPolicy } from './domain/deps';
import { mailMetrics } from './metrics';
import type { IdGenerator, Mailer, MessageRepository, TemplateRepository, UsageCounter } from './ports';

/** This service's SQL migrations (PostgreSQL), next to src/ and dist/ in the package. */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../migrations');

export interface MailWiringOptions {
  store: ServiceStore;
  /** Create the store's indexes (MongoDB) now; false when the setup Job did (DB_MIGRATE_ON_BOOT=false). */
  setUp?: boolean;
  /** Where the outbox relay publishes (the JetStream bus). */
  publisher: EventPublisher;
  logger: Logger;
  mailer: Mailer;
  limits: MailLimits;
  retry: RetryPolicy;
  /** MAIL_ENVELOPE_KEY, then MAIL_ENVELOPE_PREVIOUS_KEY when set. */
  envelopeKeys: readonly MailEnvelopeKey[];
  linkBaseUrl?: string;
  /** CONSOLE_URL: where console invitation and reset links point. */
  consoleUrl: string;
  /** How often the relay sweeps for events a crash left behind. */
  relayIntervalMs?: number;
  /** The process's registry: the relay's and the use cases' metrics are recorded there. */
  metrics?: Metrics;
}

/** The outbox relay, whichever store it drains. */
export interface RelayHandle {
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export interface MailWiring {
  deps: MailDeps;
  relay: RelayHandle;
  /** Consumer idempotency records, in the same database. */
  processed: ProcessedEvents;
  /** The service's own parts to close before the store itself (the relay). */
  closers: Closer[];
}

interface StoreAdapters {
  templates: TemplateRepository;
  messages: MessageRepository;
  usage: UsageCounter;
  ids: IdGenerator;
  relay: RelayHandle & { start(observer?: OutboxObserver): void };
  processed: ProcessedEvents;
}

/**
 * The adapters for the store DATABASE_URL names, the running outbox relay, and the deps the use
 * cases take. `main.ts` and the integration harness both build the service through this, and
 * only the driver of the chosen store is loaded.
 */
export async function wireMail(opts: MailWiringOptions): Promise<MailWiring> {
  if (opts.setUp !== false) await ensureMailIndexes(opts.store);
  const a = opts.store.kind === 'postgres' ? await postgresAdapters(opts) : await mongoAdapters(opts);
  a.relay.start(opts.metrics ? outboxMetrics(opts.metrics) : undefined);
  const deps: MailDeps = {
    templates: a.templates,
    messages: a.messages,
    usage: a.usage,
    mailer: opts.mailer,
    ids: a.ids,
    logger: opts.logger,
    limits: opts.limits,
    retry: opts.retry,
    envelopeKeys: opts.envelopeKeys,
    ...(opts.linkBaseUrl !== undefined ? { linkBaseUrl: opts.linkBaseUrl } : {}),
    consoleUrl: opts.consoleUrl,
    now: () => new Date(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...(opts.metrics ? { observer: mailMetrics(opts.metrics) } : {}),
  };
  return {
    deps,
    relay: a.relay,
    processed: a.processed,
    closers: [{ name: 'outbox', close: () => a.relay.stop() }],
  };
}

const relayInterval = (opts: MailWiringOptions) =>
  opts.relayIntervalMs !== undefined ? { intervalMs: opts.relayIntervalMs } : {};

async function postgresAdapters(opts: MailWiringOptions): Promise<StoreAdapters> {
  if (opts.store.kind !== 'postgres') throw new Error('not a PostgreSQL store');
  const { pool } = opts.store;
  const pg = await import('@baas/common/postgres');
  const { PostgresTemplateRepository } = await import('./adapters/postgres-template-repository');
  const { PostgresMessageRepository } = await import('./adapters/postgres-message-repository');
  const { PostgresUsageCounter } = await import('./adapters/postgres-usage-counter');
  const { hexIdGenerator } = await import('./adapters/hex-ids');
  const relay = new pg.PgOutboxRelay(pool, opts.publisher, opts.logger, relayInterval(opts));
  return {
    templates: new PostgresTemplateRepository(pool),
    messages: new PostgresMessageRepository(pool, () => relay.kick()),
    usage: new PostgresUsageCounter(pool),
    ids: hexIdGenerator,
    relay,
    processed: new pg.PgProcessedEvents(pool),
  };
}

async function mongoAdapters(opts: MailWiringOptions): Promise<StoreAdapters> {
  if (opts.store.kind !== 'mongodb') throw new Error('not a MongoDB store');
  const { db } = opts.store;
  const mongo = await import('@baas/common/mongo');
  const { MongoTemplateRepository } = await import('./adapters/mongo-template-repository');
  const { MongoMessageRepository, objectIdGenerator } = await import('./adapters/mongo-message-repository');
  const { MongoUsageCounter } = await import('./adapters/mongo-usage-counter');
  const templates = new MongoTemplateRepository(db);
  const usage = new MongoUsageCounter(db);
  const relay = new mongo.OutboxRelay({
    collections: () => [db.collection('messages')],
    publisher: opts.publisher,
    logger: opts.logger,
    ...relayInterval(opts),
  });
  const messages = new MongoMessageRepository(db, (id) => void relay.relayOne(db.collection('messages'), id));
  return {
    templates,
    messages,
    usage,
    ids: objectIdGenerator,
    relay,
    processed: new mongo.MongoProcessedEvents(db),
  };
}
