import type { Db, MongoClient } from 'mongodb';
import type { Pool } from 'pg';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { eventMetrics } from './messaging-metrics';
import { dependencyMetrics } from './dependency-metrics';
import type { ReadinessCheck } from './http/bootstrap';
import type { StoreLocation } from './store';
import type { ProcessedEvents } from './events/idempotency';
import { jetstreamManager } from '@nats-io/jetstream';
import { z } from 'zod';
import { loadConfig, setupEnvShape } from './config';
import { createLogger } from './logger';
import { ensureStreams, JetStreamBus } from './events/bus';
import { connectNats, natsClientOptions, type NatsSettings } from './events/nats-connection';
import {
  DEFAULT_PROCESSED_EVENTS_RETENTION_SECONDS,
  EVENT_CONSUMING_SERVICES,
  type EventConsumingService,
} from './janitor';
import { answerProcessedEventsPrune } from './janitor-responder';

export interface Closer {
  name: string;
  close: () => Promise<void>;
}

/** The service's own database, on whichever store `DATABASE_URL` names. */
export type ServiceStore =
  { kind: 'postgres'; pool: Pool; url: string } | { kind: 'mongodb'; client: MongoClient; db: Db };

export interface ServiceInfra {
  store: ServiceStore;
  nc: NatsConnection;
  bus: JetStreamBus;
  /** Consumer idempotency records in the service's own database. */
  processed: ProcessedEvents;
  /** Readiness of the service's own dependencies: its database and NATS. */
  readiness: ReadinessCheck[];
  /** Close after the service's own closers: NATS drained, then the database. */
  closers: Closer[];
}

export interface StoreOptions {
  /** The service's SQL migrations (applied at boot on PostgreSQL when `migrate` is true). */
  migrationsDir: string;
  migrate: boolean;
  /** PostgreSQL: the longest any statement of this service may run (a 504 past it). */
  statementTimeoutMs?: number;
  /** The process's registry: every database call is timed there. */
  metrics?: Metrics;
}

/**
 * Connects the store a service's DATABASE_URL names. The driver of the other store is never
 * loaded, and processes that own no database (gateway, janitor) never call this.
 */
export async function connectStore(
  service: string,
  location: StoreLocation,
  logger: Logger,
  opts: StoreOptions,
): Promise<{
  store: ServiceStore;
  processed: ProcessedEvents;
  readiness: ReadinessCheck;
  close: () => Promise<void>;
}> {
  if (location.kind === 'postgres') {
    const pg = await import('./postgres');
    if (opts.migrate) await pg.migratePostgres(location.url, opts.migrationsDir, logger);
    const pool = await pg.connectPostgres(
      location.url,
      `baas-${service}`,
      logger,
      opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {},
      opts.metrics ? dependencyMetrics(opts.metrics) : undefined,
    );
    return {
      store: { kind: 'postgres', pool, url: location.url },
      processed: new pg.PgProcessedEvents(pool),
      readiness: pg.postgresReadiness(pool),
      close: () => pool.end(),
    };
  }
  const mongo = await import('./mongo');
  const client = await mongo.connectMongo(
    location.url,
    `baas-${service}`,
    logger,
    opts.metrics ? dependencyMetrics(opts.metrics) : undefined,
  );
  const db = client.db(location.database);
  return {
    store: { kind: 'mongodb', client, db },
    processed: new mongo.MongoProcessedEvents(db),
    readiness: mongo.mongoReadiness(db),
    close: () => mongo.closeMongo(client),
  };
}

/**
 * What every data-owning service connects to at boot: its database, NATS, and the JetStream
 * event streams (created or updated idempotently).
 */
export async function connectServiceInfra(
  service: string,
  config: NatsSettings & {
    DATABASE_URL: StoreLocation;
    DB_MIGRATE_ON_BOOT: boolean;
    NATS_STREAM_REPLICAS: number;
    PROCESSED_EVENTS_RETENTION_SECONDS?: number;
  },
  logger: Logger,
  migrationsDir: string,
  storeOptions: Pick<StoreOptions, 'statementTimeoutMs'> & {
    /** The process's registry: the bus reports what it publishes and consumes there, and every
     * database call is timed there. */
    metrics?: Metrics;
  } = {},
): Promise<ServiceInfra> {
  // A bad NATS setting fails the boot before anything is connected.
  const natsClient = natsClientOptions(config, service);
  const db = await connectStore(service, config.DATABASE_URL, logger, {
    migrationsDir,
    migrate: config.DB_MIGRATE_ON_BOOT,
    ...(storeOptions.metrics ? { metrics: storeOptions.metrics } : {}),
    ...(storeOptions.statementTimeoutMs !== undefined
      ? { statementTimeoutMs: storeOptions.statementTimeoutMs }
      : {}),
  });
  const nc = await connectNats(config.NATS_URL, `baas-${service}`, logger, natsClient);
  const bus = await JetStreamBus.create(
    nc,
    logger,
    // the setup Job made them when the service does not set up at boot
    { replicas: config.NATS_STREAM_REPLICAS, ensure: config.DB_MIGRATE_ON_BOOT, service },
    storeOptions.metrics ? eventMetrics(storeOptions.metrics) : undefined,
  );
  // Every event consumer keeps idempotency records; the janitor has them pruned by retention.
  const prune = isEventConsumer(service)
    ? answerProcessedEventsPrune(
        nc,
        service,
        db.processed,
        config.PROCESSED_EVENTS_RETENTION_SECONDS ?? DEFAULT_PROCESSED_EVENTS_RETENTION_SECONDS,
        logger,
      )
    : undefined;
  return {
    store: db.store,
    nc,
    bus,
    processed: db.processed,
    readiness: [db.readiness, natsReadiness(nc)],
    closers: [
      ...(prune ? [{ name: 'processed-events-prune', close: () => prune.close() }] : []),
      { name: 'nats', close: () => nc.drain() },
      { name: 'database', close: db.close },
    ],
  };
}

/**
 * A data-owning service's one-shot setup, what the setup Job runs
 * (`node services/<service>/dist/setup.js`) so that replicas started with DB_MIGRATE_ON_BOOT=false
 * do none of it: the migrations (PostgreSQL), the service's indexes (MongoDB: `indexes`) and the
 * JetStream streams. Idempotent; replicas and Jobs may run it concurrently. Reads DATABASE_URL,
 * the NATS settings, NATS_STREAM_REPLICAS and LOG_LEVEL only. Exits 0 when done, 1 on failure.
 */
export function runSetup(
  service: string,
  migrationsDir: string,
  indexes: (store: ServiceStore) => Promise<void>,
): void {
  runMain(async () => {
    const config = loadConfig(z.object(setupEnvShape));
    const logger = createLogger(`${service}-setup`, config.LOG_LEVEL);
    const db = await connectStore(service, config.DATABASE_URL, logger, { migrationsDir, migrate: true });
    try {
      await indexes(db.store);
      const nc = await connectNats(
        config.NATS_URL,
        `baas-${service}-setup`,
        logger,
        natsClientOptions(config, service),
      );
      try {
        await ensureStreams(await jetstreamManager(nc), { replicas: config.NATS_STREAM_REPLICAS });
      } finally {
        await nc.drain();
      }
    } finally {
      await db.close();
    }
    logger.info({ store: config.DATABASE_URL.kind }, 'setup done: migrations, indexes and streams');
    process.exit(0);
  });
}

const isEventConsumer = (service: string): service is EventConsumingService =>
  (EVENT_CONSUMING_SERVICES as readonly string[]).includes(service);

export function natsReadiness(nc: NatsConnection): ReadinessCheck {
  return { name: 'nats', check: async () => void (await nc.flush()) };
}

/** Runs a service's main; a failure at boot (bad config, unreachable dependency) exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
