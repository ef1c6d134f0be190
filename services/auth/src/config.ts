import { z } from 'zod';
import { env, loadConfig, serviceEnvShape } from '@baas/common';

export const authConfigSchema = z.object({
  ...serviceEnvShape,
  PORT: env.port(8081),
  MONGO_DB: env.string('baas_auth'),
  DEFAULT_STORAGE_QUOTA_BYTES: env.int(104857600),
  DEFAULT_DOCUMENT_QUOTA: env.int(100000),
  DEFAULT_MAIL_MONTHLY_LIMIT: env.int(1000),
});

export type AuthConfig = Readonly<z.infer<typeof authConfigSchema>>;

export const loadAuthConfig = (e: Record<string, string | undefined> = process.env): AuthConfig =>
  loadConfig(authConfigSchema, e);
