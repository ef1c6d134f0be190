import { startTelemetry } from '@baas/common/telemetry';
const telemetry = startTelemetry('gateway');

import { Redis } from 'ioredis';
import {
  connectNats,
  natsClientOptions,
  createLogger,
  createMetrics,
  dependencyMetrics,
  instrumentRedis,
  redactConfig,
  runService,
  startMetricsServer,
} from '@baas/common';
import { loadGatewayConfig } from './config';
import { createApp } from './app';
import { AuthProjectDirectory } from './adapters/auth-project-directory';
import { CachedProjectDirectory } from './domain/cached-project-directory';
import { AuthConsoleSessions } from './adapters/auth-console-sessions';
import { CachedConsoleSessions } from './domain/cached-console-sessions';
import { RedisRateLimiter } from './adapters/redis-rate-limiter';
import { subscribeInvalidations } from './adapters/nats-invalidation';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  // Fail fast on Redis: a command that cannot run now goes to the in-process limiter instead.
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 250,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    // The limit checks of requests that arrive together go to Redis in one write (fewer loopback
    // syscalls and wake-ups on both sides; each command keeps its own answer).
    enableAutoPipelining: true,
  });
  redis.on('error', (err) => logger.debug({ err }, 'redis error'));

  const directory = new CachedProjectDirectory(
    new AuthProjectDirectory(config.AUTH_URL, config.GATEWAY_ASSERTION_PRIVATE_KEY),
    config.KEY_CACHE_TTL_SECONDS * 1000,
  );
  const nc = await connectNats(config.NATS_URL, 'baas-gateway', logger, natsClientOptions(config, 'gateway'));
  const consoleSessions = new CachedConsoleSessions(
    new AuthConsoleSessions(config.AUTH_URL, config.GATEWAY_ASSERTION_PRIVATE_KEY),
  );
  const sub = subscribeInvalidations(nc, directory, consoleSessions);

  const metrics = createMetrics('gateway');
  instrumentRedis(redis, dependencyMetrics(metrics));
  const serviceApp = createApp({
    logger,
    metrics,
    readiness: [{ name: 'nats', check: async () => void (await nc.flush()) }],
    directory,
    consoleSessions,
    globalLimiter: new RedisRateLimiter(
      redis,
      config.RATE_LIMIT_GLOBAL_POINTS,
      config.RATE_LIMIT_GLOBAL_WINDOW_SECONDS,
      'rl:global',
    ),
    authLimiter: new RedisRateLimiter(
      redis,
      config.RATE_LIMIT_AUTH_POINTS,
      config.RATE_LIMIT_AUTH_WINDOW_SECONDS,
      'rl:auth',
    ),
    adminLimiter: new RedisRateLimiter(
      redis,
      config.RATE_LIMIT_ADMIN_POINTS,
      config.RATE_LIMIT_ADMIN_WINDOW_SECONDS,
      'rl:admin',
    ),
    limits: {
      globalWindowSeconds: config.RATE_LIMIT_GLOBAL_WINDOW_SECONDS,
      authWindowSeconds: config.RATE_LIMIT_AUTH_WINDOW_SECONDS,
      adminWindowSeconds: config.RATE_LIMIT_ADMIN_WINDOW_SECONDS,
    },
    trustProxy: config.TRUST_PROXY,
    adminToken: config.PLATFORM_ADMIN_TOKEN,
    assertionPrivateKey: config.GATEWAY_ASSERTION_PRIVATE_KEY,
    upstreams: {
      auth: config.AUTH_URL,
      data: config.DATA_URL,
      storage: config.STORAGE_URL,
      mail: config.MAIL_URL,
    },
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_SECONDS * 1000,
    consoleDir: config.CONSOLE_DIR,
  });
  const metricsServer = await startMetricsServer(metrics, config.GATEWAY_METRICS_PORT);

  await runService({
    name: 'gateway',
    port: config.GATEWAY_PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'upstreams', close: () => serviceApp.close() },
      { name: 'metrics', close: () => new Promise<void>((r) => metricsServer.close(() => r())) },
      {
        name: 'nats',
        close: async () => {
          sub.unsubscribe();
          await nc.drain();
        },
      },
      { name: 'redis', close: async () => void (await redis.quit()) },
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
