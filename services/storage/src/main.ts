import path from 'node:path';
import { startTelemetry } from '@baas/common';
const telemetry = startTelemetry('storage');

import {
  createLogger,
  JANITOR_SUBJECTS,
  redactConfig,
  runService,
  answerJanitor,
  connectServiceInfra,
  mongoStore,
  runMain,
} from '@baas/common';
import { MongoProcessedEvents, OutboxRelay } from '@baas/common/mongo';
import type { Collection } from 'mongodb';
import { loadStorageConfig } from './config';
import { createApp } from './app';
import { MongoFileRepository } from './adapters/mongo-file-repository';
import { MongoQuotaLedger, MongoSweepCursor } from './adapters/mongo-quota-ledger';
import { createObjectStore } from './adapters/object-store-factory';
import { consumeProjectDeleted } from './consumers';
import { sweepOrphans } from './domain/files/sweep-orphans';
import type { FileDeps } from './domain/files/deps';

/** This service's SQL migrations (PostgreSQL), next to dist/ in the package. */
const MIGRATIONS_DIR = path.resolve(__dirname, '../migrations');

async function main(): Promise<void> {
  const config = loadStorageConfig();
  const logger = createLogger('storage', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const infra = await connectServiceInfra('storage', config, logger, MIGRATIONS_DIR);
  const { nc, bus } = infra;
  const { db } = mongoStore(infra.store);
  const store = await createObjectStore(config);

  // Each refers to the other only from callbacks that run after both exist.
  const files: MongoFileRepository = new MongoFileRepository(db, (coll, id) => relay.relayOne(coll, id));
  const relay: OutboxRelay = new OutboxRelay({
    collections: () => [files.coll as unknown as Collection],
    publisher: bus,
    logger,
  });
  await files.ensureIndexes();
  relay.start();

  const deps: FileDeps = {
    files,
    quota: new MongoQuotaLedger(db),
    store,
    limits: { maxFileBytes: config.MAX_FILE_BYTES, defaultQuotaBytes: config.DEFAULT_STORAGE_QUOTA_BYTES },
    publicBaseUrl: config.PUBLIC_FILES_BASE_URL,
  };
  const consumer = await consumeProjectDeleted(bus, new MongoProcessedEvents(db), deps);
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.sweepOrphans, logger, (cmd) =>
    sweepOrphans({ ...deps, cursor: new MongoSweepCursor(db) }, cmd),
  );

  const serviceApp = createApp({
    logger,
    assertionSecret: config.INTERNAL_ASSERTION_SECRET,
    readiness: [...infra.readiness, { name: `store-${store.provider}`, check: () => store.ping() }],
    files: deps,
  });

  await runService({
    name: 'storage',
    port: config.PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'janitor', close: () => janitor.close() },
      { name: 'consumer', close: () => consumer.stop() },
      { name: 'outbox', close: () => relay.stop() },
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
