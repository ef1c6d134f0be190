/**
 * The three classes of rate-limiter-flexible the services use, each loaded from its own file. The
 * package's index requires all of its limiters (Mongo, MySQL, DynamoDB, Prisma, etcd...): about
 * 0.8 MB of heap and their compiled code in every process that imports it. A subpath of its own
 * (`@baas/common/rate-limiter`), so that services without a rate limiter load none of it.
 */
import type * as Flexible from 'rate-limiter-flexible';

/* eslint-disable @typescript-eslint/no-require-imports */
export const RateLimiterRedis =
  require('rate-limiter-flexible/lib/RateLimiterRedis') as typeof Flexible.RateLimiterRedis;
export const RateLimiterMemory =
  require('rate-limiter-flexible/lib/RateLimiterMemory') as typeof Flexible.RateLimiterMemory;
export const RateLimiterRes =
  require('rate-limiter-flexible/lib/RateLimiterRes') as typeof Flexible.RateLimiterRes;
/* eslint-enable @typescript-eslint/no-require-imports */
export type RateLimiterRedis = Flexible.RateLimiterRedis;
export type RateLimiterMemory = Flexible.RateLimiterMemory;
export type RateLimiterRes = Flexible.RateLimiterRes;
