import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from '@baas/common';
import type { SweepObserver } from './domain/sweep';

/** baas_janitor_* metrics: items purged, sweep duration and failures per task (bounded labels). */
export function sweepMetrics(metrics: Metrics): SweepObserver {
  const processed = new client.Counter({
    name: `${METRIC_PREFIX}janitor_items_processed_total`,
    help: 'Items purged or reconciled by the janitor',
    labelNames: ['task'] as const,
    registers: [metrics.registry],
  });
  const failures = new client.Counter({
    name: `${METRIC_PREFIX}janitor_task_failures_total`,
    help: 'Janitor task runs that failed',
    labelNames: ['task'] as const,
    registers: [metrics.registry],
  });
  const duration = new client.Histogram({
    name: `${METRIC_PREFIX}janitor_task_duration_seconds`,
    help: 'Duration of one janitor task within a sweep',
    labelNames: ['task'] as const,
    buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers: [metrics.registry],
  });
  return {
    processed: (task, n) => processed.inc({ task }, n),
    failed: (task) => failures.inc({ task }),
    duration: (task, s) => duration.observe({ task }, s),
  };
}
