import { startTelemetry } from '@baas/common';
const telemetry = startTelemetry('auth');

import {
  connectMongo,
  connectNats,
  createLogger,
  JetStreamBus,
  mongoReadiness,
  OutboxRelay,
  redactConfig,
  runService,
} from '@baas/common';
import { loadAuthConfig } from './config';
import { createApp } from './app';
import { MongoProjectRepository, objectIdGenerator } from './adapters/mongo-project-repository';
import { NatsCacheInvalidator } from './adapters/nats-cache-invalidator';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const logger = createLogger('auth', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const mongo = await connectMongo(config.MONGO_URL, 'baas-auth');
  const db = mongo.db(config.MONGO_DB);
  const nc = await connectNats(config.NATS_URL, 'baas-auth', logger);
  const bus = await JetStreamBus.create(nc, logger);

  const projects = new MongoProjectRepository(db);
  await projects.ensureIndexes();
  const relay = new OutboxRelay({ collections: () => [db.collection(projects.coll.collectionName)], publisher: bus, logger });
  relay.start();

  const serviceApp = createApp({
    logger,
    assertionSecret: config.INTERNAL_ASSERTION_SECRET,
    readiness: [mongoReadiness(db), { name: 'nats', check: async () => void (await nc.flush()) }],
    projects: {
      projects,
      invalidator: new NatsCacheInvalidator(nc),
      ids: objectIdGenerator,
      defaults: {
        storageBytes: config.DEFAULT_STORAGE_QUOTA_BYTES,
        documents: config.DEFAULT_DOCUMENT_QUOTA,
        mailMonthly: config.DEFAULT_MAIL_MONTHLY_LIMIT,
      },
    },
  });

  await runService({
    name: 'auth',
    port: config.PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'outbox', close: () => relay.stop() },
      { name: 'nats', close: () => nc.drain() },
      { name: 'mongo', close: () => mongo.close() },
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
