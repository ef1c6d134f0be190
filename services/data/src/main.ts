import path from 'node:path';
import { startTelemetry } from '@baas/common';
const telemetry = startTelemetry('data');

import {
  createLogger,
  redactConfig,
  remoteAccessTokenVerifier,
  runService,
  answerJanitor,
  JANITOR_SUBJECTS,
  connectServiceInfra,
  runMain,
} from '@baas/common';
import { loadDataConfig } from './config';
import { createApp } from './app';
import { wireData } from './wiring';
import { consumeProjectDeleted } from './consumers/project-deleted';
import { purgeTrash } from './domain/documents/purge-trash';

/** This service's SQL migrations (PostgreSQL), next to dist/ in the package. */
const MIGRATIONS_DIR = path.resolve(__dirname, '../migrations');

async function main(): Promise<void> {
  const config = loadDataConfig();
  const logger = createLogger('data', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const infra = await connectServiceInfra('data', config, logger, MIGRATIONS_DIR, {
    // Every user-driven query is bounded; internal statements are all index lookups.
    statementTimeoutMs: config.QUERY_MAX_TIME_MS,
  });
  const { nc, bus } = infra;

  const { deps, relay } = await wireData({
    store: infra.store,
    tokens: remoteAccessTokenVerifier(config.AUTH_URL),
    publisher: bus,
    logger,
    limits: { defaultDocumentQuota: config.DEFAULT_DOCUMENT_QUOTA, queryMaxTimeMs: config.QUERY_MAX_TIME_MS },
    outboxIntervalMs: config.OUTBOX_INTERVAL_MS,
  });
  relay.start();
  const projectDeleted = await consumeProjectDeleted(bus, infra.processed, deps);
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.purgeTrash, logger, (cmd) =>
    purgeTrash(deps, new Date(cmd.olderThan), cmd.batchSize),
  );

  const serviceApp = createApp({
    logger,
    assertionSecret: config.INTERNAL_ASSERTION_SECRET,
    readiness: infra.readiness,
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
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
