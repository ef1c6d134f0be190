import { startTelemetry } from '@baas/common';
const telemetry = startTelemetry('data');

import {
  connectMongo,
  connectNats,
  createLogger,
  JetStreamBus,
  MongoProcessedEvents,
  mongoReadiness,
  redactConfig,
  remoteAccessTokenVerifier,
  runService,
  answerJanitor,
  JANITOR_SUBJECTS,
} from '@baas/common';
import { loadDataConfig } from './config';
import { createApp } from './app';
import { wireData } from './wiring';
import { consumeProjectDeleted } from './consumers/project-deleted';
import { purgeTrash } from './domain/documents/purge-trash';

async function main(): Promise<void> {
  const config = loadDataConfig();
  const logger = createLogger('data', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const mongo = await connectMongo(config.MONGO_URL, 'baas-data');
  const db = mongo.db(config.MONGO_DB);
  const nc = await connectNats(config.NATS_URL, 'baas-data', logger);
  const bus = await JetStreamBus.create(nc, logger, { replicas: config.NATS_STREAM_REPLICAS });

  const { deps, relay } = await wireData({
    mongo,
    dbName: config.MONGO_DB,
    tokens: remoteAccessTokenVerifier(config.AUTH_URL),
    publisher: bus,
    logger,
    limits: { defaultDocumentQuota: config.DEFAULT_DOCUMENT_QUOTA, queryMaxTimeMs: config.QUERY_MAX_TIME_MS },
    outboxIntervalMs: config.OUTBOX_INTERVAL_MS,
  });
  relay.start();
  const projectDeleted = await consumeProjectDeleted(bus, new MongoProcessedEvents(db), deps);
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.purgeTrash, logger, (cmd) =>
    purgeTrash(deps, new Date(cmd.olderThan), cmd.batchSize),
  );

  const serviceApp = createApp({
    logger,
    assertionSecret: config.INTERNAL_ASSERTION_SECRET,
    readiness: [mongoReadiness(db), { name: 'nats', check: async () => void (await nc.flush()) }],
    data: deps,
  });

  await runService({
    name: 'data',
    port: config.PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'janitor-responder', close: () => janitor.close() },
      { name: 'project-deleted', close: () => projectDeleted.stop() },
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
