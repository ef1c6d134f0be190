import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from '@baas/common';
import type { OrphanSweepObserver } from './domain/files/sweep-orphans';

/** What the orphan sweep deleted, by kind, and the sweeps it refused or cut short. */
export function orphanSweepMetrics(metrics: Metrics): OrphanSweepObserver {
  const deletions = new client.Counter({
    name: `${METRIC_PREFIX}storage_orphan_sweep_deletions_total`,
    help: 'Deletions by the orphan sweep: stale pending uploads, records whose object is gone, objects without a record',
    labelNames: ['kind'] as const,
    registers: [metrics.registry],
  });
  const stops = new client.Counter({
    name: `${METRIC_PREFIX}storage_orphan_sweep_stops_total`,
    help: 'Orphan sweeps aborted because the object store did not answer, or cut short at the deletion cap',
    labelNames: ['reason'] as const,
    registers: [metrics.registry],
  });
  for (const kind of ['pending', 'record', 'object']) deletions.inc({ kind }, 0);
  return {
    deleted: (kind, n) => deletions.inc({ kind }, n),
    aborted: (reason) => stops.inc({ reason }),
  };
}
