import type { Collection, Document } from 'mongodb';
import {
  KeyedMutex,
  trustedProjectId,
  type AccessTokenVerifier,
  type DependencyMetrics,
  type EventPublisher,
  type Logger,
  type OutboxObserver,
  type ServiceStore,
} from '@baas/common';
import { ensureDataIndexes } from './adapters/indexes';
import type { DataDeps, DataLimits } from './ports';

export interface DataWiring {
  deps: DataDeps;
  /** Publishes what writes recorded; start it, flush it in tests, stop it at shutdown. */
  relay: { start(observer?: OutboxObserver): void; stop(): Promise<void>; flush(): Promise<void> };
  /** Closes what the wiring opened itself (after the relay stopped; the store is the caller's). */
  close: () => Promise<void>;
}

/**
 * PostgreSQL connections of the generic-plan pool, beside the store's pool (20): on two cores
 * the database runs two statements at a time, and these take well under a millisecond each.
 */
const FIXED_PLAN_CONNECTIONS = 8;

export interface DataWiringOptions {
  store: ServiceStore;
  /** Create the store's indexes (MongoDB) now; false when the setup Job did (DB_MIGRATE_ON_BOOT=false). */
  setUp?: boolean;
  tokens: AccessTokenVerifier;
  publisher: EventPublisher;
  logger: Logger;
  limits: DataLimits;
  /** The periodic outbox pass (MongoDB scans every collection, so it runs less often there). */
  outboxIntervalMs?: number;
  /** Times the statements of the data service's own pools (the store's pool is timed by its owner). */
  dependencies?: DependencyMetrics;
}

/**
 * The data service's adapters on the store its DATABASE_URL names; main.ts and the integration
 * harness both build the service with this, so tests run exactly what production runs.
 */
export async function wireData(opts: DataWiringOptions): Promise<DataWiring> {
  if (opts.setUp !== false) await ensureDataIndexes(opts.store);
  return opts.store.kind === 'postgres' ? wirePostgres(opts, opts.store) : wireMongo(opts, opts.store);
}

async function wirePostgres(
  opts: DataWiringOptions,
  store: Extract<ServiceStore, { kind: 'postgres' }>,
): Promise<DataWiring> {
  const { PgOutboxRelay, createPostgresPool } = await import('@baas/common/postgres');
  const { PgCollectionCatalogue } = await import('./adapters/postgres/catalogue');
  const { PgDocumentStore } = await import('./adapters/postgres/documents');
  // Strings sort by the database's collation; MongoDB's order is the binary one.
  const { rows } = await store.pool.query<{ collation: string }>(
    'SELECT datcollate AS collation FROM pg_database WHERE datname = current_database()',
  );
  const collation = rows[0]?.collation ?? '';
  if (!/^(C|POSIX|C\.UTF-?8)$/i.test(collation))
    opts.logger.warn(
      { collation },
      'the database collation is not C: strings will not sort in MongoDB order (create it with LC_COLLATE C.UTF-8)',
    );
  const relay = new PgOutboxRelay(store.pool, opts.publisher, opts.logger, {
    intervalMs: opts.outboxIntervalMs ?? 1000,
    // each document write replaces its indexed values' count rows (declared-indexes.ts)
    hotTables: ['document_index_counts'],
  });
  const afterCommit = () => relay.kick();
  const catalogue = new PgCollectionCatalogue(store.pool, afterCommit);
  // Statements whose best plan does not depend on their values keep one generic plan per
  // connection (PgDocumentsContext.fixed). A pool of its own: the setting is the connection's.
  const fixed = createPostgresPool(
    store.url,
    'baas-data-fixed',
    opts.logger,
    {
      statement_timeout: opts.limits.queryMaxTimeMs,
      max: FIXED_PLAN_CONNECTIONS,
      options: '-c plan_cache_mode=force_generic_plan',
      allowExitOnIdle: true,
    },
    opts.dependencies,
  );
  const documents = new PgDocumentStore({ pool: store.pool, fixed, catalogue, afterCommit });
  return {
    deps: { catalogue, documents, tokens: opts.tokens, limits: opts.limits },
    relay,
    close: () => fixed.end(),
  };
}

async function wireMongo(
  opts: DataWiringOptions,
  store: Extract<ServiceStore, { kind: 'mongodb' }>,
): Promise<DataWiring> {
  const { OutboxRelay } = await import('@baas/common/mongo');
  const { MongoCollectionCatalogue } = await import('./adapters/mongo/catalogue');
  const { MongoDocumentStore, detectAggregationMode } = await import('./adapters/mongo/documents');
  const { MongoDocumentQuota } = await import('./adapters/mongo/quota');
  const { MongoPendingIndex } = await import('./adapters/mongo/pending-index');
  const { MarkedOutboxRelay } = await import('./adapters/mongo/relay');
  const locks = new KeyedMutex();
  const catalogue = new MongoCollectionCatalogue(store.db, locks);
  const pending = new MongoPendingIndex(store.db);
  // The kernel's relay publishes the catalogue's events and single documents right after a write.
  const inner = new OutboxRelay({
    collections: () => [catalogue.coll as unknown as Collection<Document>],
    publisher: opts.publisher,
    logger: opts.logger,
  });
  const documents = new MongoDocumentStore(store.client, store.db.databaseName, {
    locks,
    quota: new MongoDocumentQuota(store.db, locks),
    aggregation: await detectAggregationMode(store.client),
    maxTimeMS: opts.limits.queryMaxTimeMs,
    pending,
    afterWrite: (coll, id) => void inner.relayOne(coll, id),
    onPurgeError: (projectId, collection, err) =>
      opts.logger.error({ err, projectId, collection }, 'trash purge failed for one document; continuing'),
  });
  // Data written before the indexes existed: marked once, in the background (idempotent).
  const { backfillPendingIndex } = await import('./adapters/mongo/pending-backfill');
  void backfillPendingIndex({
    serviceDb: store.db,
    projectDb: (projectId) => store.client.db(documents.dbName(projectId)),
    pending,
    logger: opts.logger,
  }).catch((err: unknown) =>
    opts.logger.error({ err }, 'pending-index backfill failed; the next start retries'),
  );
  const relay = new MarkedOutboxRelay(
    inner,
    pending,
    (projectId, name) => documents.forProject(trustedProjectId(projectId)).mongoCollection(name),
    opts.logger,
    opts.outboxIntervalMs ?? 10_000,
  );
  return {
    deps: { catalogue, documents, tokens: opts.tokens, limits: opts.limits },
    relay,
    close: () => Promise.resolve(),
  };
}
