import { startTelemetry } from '@baas/common';
const telemetry = startTelemetry('storage');

import {
  createLogger,
  JANITOR_SUBJECTS,
  redactConfig,
  runService,
  answerJanitor,
  connectServiceInfra,
  runMain,
} from '@baas/common';
import { loadStorageConfig } from './config';
import { createApp } from './app';
import { createObjectStore } from './adapters/object-store-factory';
import { consumeProjectDeleted } from './consumers';
import { sweepOrphans } from './domain/files/sweep-orphans';
import { MIGRATIONS_DIR, wireStorage } from './wiring';

async function main(): Promise<void> {
  const config = loadStorageConfig();
  const logger = createLogger('storage', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const infra = await connectServiceInfra('storage', config, logger, MIGRATIONS_DIR);
  const { nc, bus } = infra;
  const store = await createObjectStore(config);
  const wired = await wireStorage({
    store: infra.store,
    objects: store,
    publisher: bus,
    logger,
    limits: { maxFileBytes: config.MAX_FILE_BYTES, defaultQuotaBytes: config.DEFAULT_STORAGE_QUOTA_BYTES },
    publicBaseUrl: config.PUBLIC_FILES_BASE_URL,
  });
  const { deps } = wired;
  const consumer = await consumeProjectDeleted(bus, wired.processed, deps);
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.sweepOrphans, logger, (cmd) =>
    sweepOrphans({ ...deps, cursor: wired.cursor }, cmd),
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
      ...wired.closers,
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
