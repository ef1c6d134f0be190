import { startTelemetry } from '@baas/common/telemetry';
const telemetry = startTelemetry('janitor');

import { Redis } from 'ioredis';
import {
  connectNats,
  natsClientOptions,
  createLogger,
  createServiceApp,
  dependencyMetrics,
  instrumentRedis,
  redactConfig,
  runService,
} from '@baas/common';
import { loadJanitorConfig } from './config';
import { RedisLease } from './adapters/redis-lease';
import { NatsCommandSender } from './adapters/nats-command-sender';
import { firstSweepDelaySeconds, runSweep, sweepTasks } from './domain/sweep';
import { sweepMetrics } from './metrics';

async function main(): Promise<void> {
  const config = loadJanitorConfig();
  const logger = createLogger('janitor', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.warn({ err }, 'redis error'));
  const nc = await connectNats(config.NATS_URL, 'baas-janitor', logger, natsClientOptions(config, 'janitor'));

  const svc = createServiceApp({
    service: 'janitor',
    logger,
    readiness: [
      { name: 'nats', check: async () => void (await nc.flush()) },
      { name: 'redis', check: async () => void (await redis.ping()) },
    ],
  });
  svc.finish();
  instrumentRedis(redis, dependencyMetrics(svc.metrics));
  const observer = sweepMetrics(svc.metrics);
  const commandTimeoutMs = config.JANITOR_COMMAND_TIMEOUT_SECONDS * 1000;
  // The lease outlives one command, so a holder that dies frees it within a command timeout.
  const lease = new RedisLease(redis, 'baas:janitor:lease', commandTimeoutMs * 2);
  const tasks = sweepTasks({
    trashGraceSeconds: config.TRASH_GRACE_PERIOD_SECONDS,
    orphanGraceSeconds: config.ORPHAN_FILE_GRACE_SECONDS,
  });
  const deps = {
    lease,
    sender: new NatsCommandSender(nc, commandTimeoutMs),
    logger,
    observer,
    batchSize: config.JANITOR_BATCH_SIZE,
    maxBatches: config.JANITOR_MAX_BATCHES,
  };

  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    current = runSweep(deps, tasks)
      .then((ran) => logger.debug({ ran }, 'sweep done'))
      .catch((err: unknown) => logger.error({ err }, 'sweep failed'));
  };
  const timer = setInterval(tick, config.JANITOR_INTERVAL_SECONDS * 1000);
  const first = setTimeout(tick, firstSweepDelaySeconds(config.JANITOR_INTERVAL_SECONDS) * 1000);

  await runService({
    name: 'janitor',
    port: config.PORT,
    logger,
    serviceApp: svc,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      {
        name: 'sweeper',
        close: async () => {
          stopped = true;
          clearInterval(timer);
          clearTimeout(first);
          await current;
        },
      },
      { name: 'nats', close: () => nc.drain() },
      { name: 'redis', close: async () => void (await redis.quit()) },
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
