import { join } from 'node:path';
import { z } from 'zod';
import { assertionPrivateKeySchema, env, loadConfig, natsEnvShape } from '@baas/common';
import { parseTrustProxy } from './domain/client-address';

/** packages/console/dist of this workspace, from services/gateway/src or services/gateway/dist. */
export const DEFAULT_CONSOLE_DIR = join(__dirname, '..', '..', '..', 'packages', 'console', 'dist');

export const gatewayConfigSchema = z.object({
  GATEWAY_PORT: env.port(8080),
  GATEWAY_METRICS_PORT: env.port(9080),
  AUTH_URL: env.url('http://127.0.0.1:8081'),
  DATA_URL: env.url('http://127.0.0.1:8082'),
  STORAGE_URL: env.url('http://127.0.0.1:8083'),
  MAIL_URL: env.url('http://127.0.0.1:8084'),
  REDIS_URL: env.string('redis://127.0.0.1:6379'),
  ...natsEnvShape,
  PLATFORM_ADMIN_TOKEN: env.secret(16),
  /**
   * Signs the assertions the services trust (Ed25519, PEM PKCS#8, or _FILE). The gateway alone
   * holds it; the services get the public half (GATEWAY_ASSERTION_PUBLIC_KEY).
   */
  GATEWAY_ASSERTION_PRIVATE_KEY: assertionPrivateKeySchema,
  /** What express's `trust proxy` accepts: false, true, a hop count, or addresses/CIDRs/names. */
  TRUST_PROXY: z
    .string()
    .default('false')
    .superRefine((v, ctx) => {
      try {
        parseTrustProxy(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    }),
  RATE_LIMIT_GLOBAL_POINTS: env.positiveInt(100),
  RATE_LIMIT_GLOBAL_WINDOW_SECONDS: env.positiveInt(900),
  RATE_LIMIT_AUTH_POINTS: env.positiveInt(20),
  RATE_LIMIT_AUTH_WINDOW_SECONDS: env.positiveInt(900),
  /**
   * Admin requests made with the platform admin token or a console session, per console account
   * (one bucket for the token) instead of per address: a console makes many calls.
   */
  RATE_LIMIT_ADMIN_POINTS: env.positiveInt(6000),
  RATE_LIMIT_ADMIN_WINDOW_SECONDS: env.positiveInt(900),
  KEY_CACHE_TTL_SECONDS: env.positiveInt(60),
  UPSTREAM_TIMEOUT_SECONDS: env.positiveInt(60),
  /**
   * The built web console (packages/console/dist), served under /console. Beside src/ and dist/
   * alike, the workspace's own build; the image copies it to the same place.
   */
  CONSOLE_DIR: env.string(DEFAULT_CONSOLE_DIR),
  LOG_LEVEL: env.logLevel(),
  SHUTDOWN_GRACE_SECONDS: env.int(10),
});

export type GatewayConfig = Readonly<z.infer<typeof gatewayConfigSchema>>;

export const loadGatewayConfig = (e: Record<string, string | undefined> = process.env): GatewayConfig =>
  loadConfig(gatewayConfigSchema, e);
