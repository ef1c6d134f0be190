import path from 'node:path';
import { startTelemetry } from '@baas/common/telemetry';
const telemetry = startTelemetry('data');

import {
  createLogger,
  createMetrics,
  dependencyMetrics,
  outboxMetrics,
  redactConfig,
  remoteAccessTokenVerifier,
  runService,
  answerJanitor,
  JANITOR_SUBJECTS,
  connectServiceInfra,
  runMain,
  startRevocationFeed,
  assertionVerificationKeys,
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

  const metrics = createMetrics('data', { store: config.DATABASE_URL.kind });
  const infra = await connectServiceInfra('data', config, logger, MIGRATIONS_DIR, {
    // Every user-driven query is bounded; internal statements are all index lookups.
    statementTimeoutMs: config.QUERY_MAX_TIME_MS,
    metrics,
  });
  const { nc, bus } = infra;
  // Ended sessions and deleted users, refused without a call per request; ready once caught up.
  const revocations = await startRevocationFeed(bus.js, logger, { observer: bus.observer });

  const wiring = await wireData({
    setUp: config.DB_MIGRATE_ON_BOOT,
    store: infra.store,
    tokens: remoteAccessTokenVerifier(config.AUTH_URL, undefined, revocations.list),
    publisher: bus,
    logger,
    limits: { defaultDocumentQuota: config.DEFAULT_DOCUMENT_QUOTA, queryMaxTimeMs: config.QUERY_MAX_TIME_MS },
    outboxIntervalMs: config.OUTBOX_INTERVAL_MS,
    dependencies: dependencyMetrics(metrics),
  });
  const { deps, relay } = wiring;
  relay.start(outboxMetrics(metrics));
  const projectDeleted = await consumeProjectDeleted(bus, infra.processed, deps);
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.purgeTrash, logger, (cmd) =>
    purgeTrash(deps, cmd, config.TRASH_GRACE_PERIOD_SECONDS),
  );

  const serviceApp = createApp({
    logger,
    metrics,
    assertionPublicKey: assertionVerificationKeys(config),
    readiness: [...infra.readiness, revocations.readiness],
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
      { name: 'generic-plan pool', close: () => wiring.close() },
      { name: 'revocations', close: () => revocations.stop() },
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
