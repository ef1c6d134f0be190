import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from '@baas/common';
import type { GatewayObserver } from './ports';

/** `2xx`…`5xx`: the status of an answer as a bounded label. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/**
 * The gateway's own metrics: requests each limiter refused, and per target service the time to
 * a forwarded request's whole answer and the requests that got none (bounded labels: limiter
 * names, service names, status classes, failure kinds).
 */
export function gatewayMetrics(metrics: Metrics, targets: readonly string[]): GatewayObserver {
  const registers = [metrics.registry];
  const rejections = new client.Counter({
    name: `${METRIC_PREFIX}rate_limit_rejections_total`,
    help: 'Requests answered 429 by a gateway rate limiter (global: every route; auth: /api/userAuth/* and /api/console/*; admin: admin requests with a credential)',
    labelNames: ['limiter'] as const,
    registers,
  });
  const duration = new client.Histogram({
    name: `${METRIC_PREFIX}upstream_request_duration_seconds`,
    help: "Time from forwarding a request to a service to the end of the service's answer",
    labelNames: ['target', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const failures = new client.Counter({
    name: `${METRIC_PREFIX}upstream_errors_total`,
    help: 'Forwarded requests without a (whole) answer: unavailable (503), timeout (504), reset (502), broken (answer cut off)',
    labelNames: ['target', 'reason'] as const,
    registers,
  });
  for (const limiter of ['global', 'auth', 'admin']) rejections.inc({ limiter }, 0);
  for (const target of targets)
    for (const reason of ['unavailable', 'timeout', 'reset', 'broken']) failures.inc({ target, reason }, 0);
  return {
    rateLimited: (limiter) => rejections.inc({ limiter }),
    upstreamAnswered: (target, status, seconds) =>
      duration.observe({ target, status_class: statusClass(status) }, seconds),
    upstreamFailed: (target, reason) => failures.inc({ target, reason }),
  };
}
