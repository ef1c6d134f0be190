import path from 'node:path';
import { ensureStorageIndexes } from './adapters/indexes';
import type { Collection } from 'mongodb';
import {
  outboxMetrics,
  type AccessTokenVerifier,
  type Closer,
  type EventPublisher,
  type Logger,
  type Metrics,
  type OutboxObserver,
  type ProcessedEvents,
  type ServiceStore,
} from '@baas/common';
import type { FileDeps } from './domain/files/deps';
import { uploadMetrics } from './upload-metrics';
import type { FileRepository, ObjectStore, QuotaLedger, SweepCursor } from './ports';

/** This service's SQL migrations (PostgreSQL), next to src/ and dist/ in the package. */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../migrations');

export interface StorageWiringOptions {
  store: ServiceStore;
  /** Create the store's indexes (MongoDB) now; false when the setup Job did (DB_MIGRATE_ON_BOOT=false). */
  setUp?: boolean;
  objects: ObjectStore;
  /** Where the outbox relay publishes (the JetStream bus; tests collect). */
  publisher: EventPublisher;
  logger: Logger;
  limits: FileDeps['limits'];
  publicBaseUrl: string;
  /** Verifies Bearer tokens sent with storage calls (with the revocation list). */
  tokens?: AccessTokenVerifier;
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

export interface StorageWiring {
  deps: FileDeps;
  cursor: SweepCursor;
  relay: RelayHandle;
  /** Consumer idempotency records, in the same database. */
  processed: ProcessedEvents;
  /** The service's own parts to close before the store itself (the relay). */
  closers: Closer[];
}

interface StoreAdapters {
  files: FileRepository;
  quota: QuotaLedger;
  cursor: SweepCursor;
  relay: RelayHandle & { start(observer?: OutboxObserver): void };
  processed: ProcessedEvents;
}

/**
 * The adapters for the store DATABASE_URL names, the running outbox relay, and the deps the use
 * cases take. `main.ts` and the integration harness both build the service through this, and
 * only the driver of the chosen store is loaded.
 */
export async function wireStorage(opts: StorageWiringOptions): Promise<StorageWiring> {
  if (opts.setUp !== false) await ensureStorageIndexes(opts.store);
  const adapters = opts.store.kind === 'postgres' ? await postgresAdapters(opts) : await mongoAdapters(opts);
  adapters.relay.start(opts.metrics ? outboxMetrics(opts.metrics) : undefined);
  return {
    deps: {
      files: adapters.files,
      quota: adapters.quota,
      store: opts.objects,
      limits: opts.limits,
      publicBaseUrl: opts.publicBaseUrl,
      ...(opts.tokens ? { tokens: opts.tokens } : {}),
      ...(opts.metrics ? { observer: uploadMetrics(opts.metrics) } : {}),
    },
    cursor: adapters.cursor,
    relay: adapters.relay,
    processed: adapters.processed,
    closers: [{ name: 'outbox', close: () => adapters.relay.stop() }],
  };
}

async function postgresAdapters(opts: StorageWiringOptions): Promise<StoreAdapters> {
  if (opts.store.kind !== 'postgres') throw new Error('not a PostgreSQL store');
  const { pool } = opts.store;
  const pg = await import('@baas/common/postgres');
  const { PostgresFileRepository } = await import('./adapters/postgres-file-repository');
  const { PostgresQuotaLedger, PostgresSweepCursor } = await import('./adapters/postgres-quota-ledger');
  const relay = new pg.PgOutboxRelay(pool, opts.publisher, opts.logger, {
    ...(opts.relayIntervalMs !== undefined ? { intervalMs: opts.relayIntervalMs } : {}),
  });
  return {
    files: new PostgresFileRepository(pool, () => relay.kick()),
    quota: new PostgresQuotaLedger(pool),
    cursor: new PostgresSweepCursor(pool),
    relay,
    processed: new pg.PgProcessedEvents(pool),
  };
}

async function mongoAdapters(opts: StorageWiringOptions): Promise<StoreAdapters> {
  if (opts.store.kind !== 'mongodb') throw new Error('not a MongoDB store');
  const { db } = opts.store;
  const mongo = await import('@baas/common/mongo');
  const { MongoFileRepository } = await import('./adapters/mongo-file-repository');
  const { MongoQuotaLedger, MongoSweepCursor } = await import('./adapters/mongo-quota-ledger');
  // Each refers to the other only from callbacks that run after both exist.
  const files: InstanceType<typeof MongoFileRepository> = new MongoFileRepository(db, (coll, id) =>
    relay.relayOne(coll, id),
  );
  const relay: InstanceType<typeof mongo.OutboxRelay> = new mongo.OutboxRelay({
    collections: () => [files.coll as unknown as Collection],
    publisher: opts.publisher,
    logger: opts.logger,
    ...(opts.relayIntervalMs !== undefined ? { intervalMs: opts.relayIntervalMs } : {}),
  });
  return {
    files,
    quota: new MongoQuotaLedger(db),
    cursor: new MongoSweepCursor(db),
    relay,
    processed: new mongo.MongoProcessedEvents(db),
  };
}
