import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from '@baas/common';
import type {
  AuthObserver,
  ConsoleLoginOutcome,
  ConsoleObserver,
  LoginOutcome,
  PasswordHashObserver,
} from './ports';

const LOGIN_OUTCOMES: readonly LoginOutcome[] = [
  'success',
  'failure',
  'throttled',
  'unverified',
  'busy',
  'error',
];

const CONSOLE_LOGIN_OUTCOMES: readonly ConsoleLoginOutcome[] = [
  'success',
  'failure',
  'throttled',
  'busy',
  'error',
];

/** The auth service's metrics: argon2 time and queue, and login attempts by outcome. */
export function authMetrics(metrics: Metrics): {
  hasher: PasswordHashObserver;
  auth: AuthObserver;
  console: ConsoleObserver;
} {
  const registers = [metrics.registry];
  const duration = new client.Histogram({
    name: `${METRIC_PREFIX}argon2_duration_seconds`,
    help: 'Time of one argon2id computation (hash or verify), without its wait for a slot',
    labelNames: ['operation'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const depths: Array<() => number> = [];
  new client.Gauge({
    name: `${METRIC_PREFIX}argon2_queue_depth`,
    help: 'Password operations waiting for an argon2 slot (PASSWORD_HASH_CONCURRENCY busy); past PASSWORD_HASH_QUEUE_MAX they get 503',
    registers,
    collect() {
      this.set(depths.reduce((n, d) => n + d(), 0));
    },
  });
  const logins = new client.Counter({
    name: `${METRIC_PREFIX}auth_logins_total`,
    help: 'End-user login attempts by outcome: success, failure (wrong email or password), throttled, unverified, busy, error',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of LOGIN_OUTCOMES) logins.inc({ outcome }, 0);
  const consoleLogins = new client.Counter({
    name: `${METRIC_PREFIX}auth_console_logins_total`,
    help: 'Console sign-in attempts by outcome: success, failure (wrong email or password), throttled, busy, error',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of CONSOLE_LOGIN_OUTCOMES) consoleLogins.inc({ outcome }, 0);
  return {
    hasher: {
      computed: (operation, seconds) => duration.observe({ operation }, seconds),
      watchQueue: (depth) => void depths.push(depth),
    },
    auth: { login: (outcome) => logins.inc({ outcome }) },
    console: { login: (outcome) => consoleLogins.inc({ outcome }) },
  };
}
