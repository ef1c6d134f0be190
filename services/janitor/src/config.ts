import { z } from 'zod';
import { env, loadConfig, natsEnvShape } from '@baas/common';

export const janitorConfigSchema = z.object({
  PORT: env.port(8085),
  ...natsEnvShape,
  REDIS_URL: env.string('redis://127.0.0.1:6379'),
  JANITOR_INTERVAL_SECONDS: env.positiveInt(300),
  TRASH_GRACE_PERIOD_SECONDS: env.int(2592000),
  ORPHAN_FILE_GRACE_SECONDS: env.int(86400),
  JANITOR_BATCH_SIZE: env.positiveInt(200),
  /** Upper bound on batches per task per sweep, so one sweep always ends. */
  JANITOR_MAX_BATCHES: env.positiveInt(50),
  JANITOR_COMMAND_TIMEOUT_SECONDS: env.positiveInt(30),
  LOG_LEVEL: env.logLevel(),
  SHUTDOWN_GRACE_SECONDS: env.int(10),
});

export type JanitorConfig = Readonly<z.infer<typeof janitorConfigSchema>>;

export const loadJanitorConfig = (e: Record<string, string | undefined> = process.env): JanitorConfig =>
  loadConfig(janitorConfigSchema, e);
