import { z } from 'zod';
import { env, loadConfig } from '@baas/common';

export const gatewayConfigSchema = z.object({
  GATEWAY_PORT: env.port(8080),
  GATEWAY_METRICS_PORT: env.port(9080),
  AUTH_URL: env.url('http://127.0.0.1:8081'),
  DATA_URL: env.url('http://127.0.0.1:8082'),
  STORAGE_URL: env.url('http://127.0.0.1:8083'),
  MAIL_URL: env.url('http://127.0.0.1:8084'),
  REDIS_URL: env.string('redis://127.0.0.1:6379'),
  NATS_URL: env.string('nats://127.0.0.1:4222'),
  PLATFORM_ADMIN_TOKEN: env.secret(16),
  INTERNAL_ASSERTION_SECRET: env.secret(32),
  TRUST_PROXY: z.enum(['false', 'loopback']).default('false'),
  RATE_LIMIT_GLOBAL_POINTS: env.positiveInt(100),
  RATE_LIMIT_GLOBAL_WINDOW_SECONDS: env.positiveInt(900),
  RATE_LIMIT_AUTH_POINTS: env.positiveInt(20),
  RATE_LIMIT_AUTH_WINDOW_SECONDS: env.positiveInt(900),
  KEY_CACHE_TTL_SECONDS: env.positiveInt(60),
  UPSTREAM_TIMEOUT_SECONDS: env.positiveInt(60),
  LOG_LEVEL: env.logLevel(),
  SHUTDOWN_GRACE_SECONDS: env.int(10),
});

export type GatewayConfig = Readonly<z.infer<typeof gatewayConfigSchema>>;

export const loadGatewayConfig = (e: Record<string, string | undefined> = process.env): GatewayConfig =>
  loadConfig(gatewayConfigSchema, e);
