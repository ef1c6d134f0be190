import { z } from 'zod';
import { env, loadConfig, storeEnvShape } from '@baas/common';

export const dataConfigSchema = z.object({
  ...storeEnvShape,
  PORT: env.port(8082),
  AUTH_URL: env.url('http://127.0.0.1:8081'),
  DEFAULT_DOCUMENT_QUOTA: env.int(100000),
  /** The floor of the trash purge: the janitor's cutoff is clamped to now minus this. */
  TRASH_GRACE_PERIOD_SECONDS: env.int(2592000),
  /** Time limit on every user-driven query and aggregation. */
  QUERY_MAX_TIME_MS: env.positiveInt(5000),
  /** The periodic outbox pass only catches what a crash left behind (writes relay at once). */
  OUTBOX_INTERVAL_MS: env.positiveInt(10000),
});

export type DataConfig = Readonly<z.infer<typeof dataConfigSchema>>;

export const loadDataConfig = (e: Record<string, string | undefined> = process.env): DataConfig =>
  loadConfig(dataConfigSchema, e);
