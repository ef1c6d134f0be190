import { startTelemetry } from '@baas/common/telemetry';
const telemetry = startTelemetry('storage');

import {
  createLogger,
  createMetrics,
  dependencyMetrics,
  JANITOR_SUBJECTS,
  redactConfig,
  runService,
  answerJanitor,
  connectServiceInfra,
  runMain,
  remoteAccessTokenVerifier,
  startRevocationFeed,
  assertionVerificationKeys,
} from '@baas/common';
import { loadStorageConfig } from './config';
import { createApp } from './app';
import { createObjectStore } from './adapters/object-store-factory';
import { consumeProjectDeleted } from './consumers';
import { sweepOrphans } from './domain/files/sweep-orphans';
import { MIGRATIONS_DIR, wireStorage } from './wiring';
import { orphanSweepMetrics } from './sweep-metrics';

async function main(): Promise<void> {
  const config = loadStorageConfig();
  const logger = createLogger('storage', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const metrics = createMetrics('storage', { store: config.DATABASE_URL.kind });
  const infra = await connectServiceInfra('storage', config, logger, MIGRATIONS_DIR, { metrics });
  const { nc, bus } = infra;
  const store = await createObjectStore(config, dependencyMetrics(metrics));
  // Ended sessions and deleted users, refused without a call per request; ready once caught up.
  const revocations = await startRevocationFeed(bus.js, logger, { observer: bus.observer });
  const wired = await wireStorage({
    setUp: config.DB_MIGRATE_ON_BOOT,
    store: infra.store,
    objects: store,
    publisher: bus,
    logger,
    metrics,
    limits: { maxFileBytes: config.MAX_FILE_BYTES, defaultQuotaBytes: config.DEFAULT_STORAGE_QUOTA_BYTES },
    publicBaseUrl: config.PUBLIC_FILES_BASE_URL,
    tokens: remoteAccessTokenVerifier(config.AUTH_URL, undefined, revocations.list),
  });
  const { deps } = wired;
  const consumer = await consumeProjectDeleted(bus, wired.processed, deps);

  const serviceApp = createApp({
    logger,
    metrics,
    assertionPublicKey: assertionVerificationKeys(config),
    readiness: [
      ...infra.readiness,
      revocations.readiness,
      { name: `store-${store.provider}`, check: () => store.ping() },
    ],
    files: deps,
  });
  const sweepPolicy = {
    graceSeconds: config.ORPHAN_FILE_GRACE_SECONDS,
    maxDeletions: config.ORPHAN_SWEEP_MAX_DELETIONS,
    observer: orphanSweepMetrics(serviceApp.metrics),
  };
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.sweepOrphans, logger, (cmd) =>
    sweepOrphans({ ...deps, cursor: wired.cursor }, cmd, sweepPolicy),
  );

  await runService({
    name: 'storage',
    port: config.PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'janitor', close: () => janitor.close() },
      { name: 'consumer', close: () => consumer.stop() },
      ...wired.closers,
      { name: 'revocations', close: () => revocations.stop() },
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
