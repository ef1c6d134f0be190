import type { Metrics } from '@baas/common';

const NAME = 'baas_dependency_request_duration_seconds';

/**
 * How many calls `baas_dependency_request_duration_seconds` counted, from its `_count` series:
 * keyed `operation|outcome` for one dependency, or `dependency|operation|outcome` for all.
 */
export async function dependencyCallCounts(
  metrics: Metrics,
  dependency?: string,
): Promise<Record<string, number>> {
  const m = await metrics.registry.getSingleMetric(NAME)?.get();
  const out: Record<string, number> = {};
  for (const v of (m?.values ?? []) as Array<{
    metricName?: string;
    labels: Record<string, string>;
    value: number;
  }>) {
    if (v.metricName !== `${NAME}_count`) continue;
    const { dependency: d, operation, outcome } = v.labels;
    if (dependency === undefined) out[`${d}|${operation}|${outcome}`] = v.value;
    else if (d === dependency) out[`${operation}|${outcome}`] = v.value;
  }
  return out;
}
