import { monitorEventLoopDelay } from 'node:perf_hooks';
import client from 'prom-client';

/** The event-loop delay gauges prom-client's default metrics derive from its histogram. */
const GAUGES = {
  min: ['nodejs_eventloop_lag_min_seconds', 'The minimum recorded event loop delay.'],
  max: ['nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.'],
  mean: ['nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.'],
  stddev: [
    'nodejs_eventloop_lag_stddev_seconds',
    'The standard deviation of the recorded event loop delays.',
  ],
  p50: ['nodejs_eventloop_lag_p50_seconds', 'The 50th percentile of the recorded event loop delays.'],
  p90: ['nodejs_eventloop_lag_p90_seconds', 'The 90th percentile of the recorded event loop delays.'],
  p99: ['nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the recorded event loop delays.'],
} as const;

/**
 * prom-client's sampling interval for its own histogram once these gauges replace it: the
 * histogram it keeps running wakes the process once an hour instead of once a second.
 */
export const UNUSED_DEFAULT_PRECISION_MS = 3_600_000;

/**
 * Replaces the `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds` gauges of
 * prom-client's default metrics with the same names measured from a histogram sampling every
 * `resolutionMs`, reported as how late each sample was (0 for a loop that is never late).
 *
 * Node's histogram records the whole interval between two samples, so prom-client's gauges read
 * the sampling interval itself plus the lag: ~0.010 s on an idle process at its default of 10 ms,
 * which dashboards live with, but ~1.0 s at the 1 s interval the services sample at (chosen for
 * idle CPU, see createMetrics), which reads as a stalled loop. Between two scrapes less than an
 * interval apart there is no new sample: the gauges keep the values of the previous scrape (Node's
 * empty histogram reports a minimum of 9.2e18 ns). Each scrape starts a new window, as before.
 */
export function registerEventLoopLag(registry: client.Registry, resolutionMs: number): void {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const late = (ns: number) => Math.max(0, ns / 1e9 - resolutionMs / 1000);
  for (const [name] of Object.values(GAUGES)) registry.removeSingleMetric(name);
  const gauge = (name: string, help: string, collect?: () => void) =>
    new client.Gauge({ name, help, registers: [registry], collect });
  // the first gauge's collect sets all of them (a scrape reads them in order), then starts a new window
  const min = gauge(GAUGES.min[0], GAUGES.min[1], () => {
    if (histogram.count === 0) return;
    min.set(late(histogram.min));
    max.set(late(histogram.max));
    mean.set(late(histogram.mean));
    stddev.set(histogram.stddev / 1e9);
    p50.set(late(histogram.percentile(50)));
    p90.set(late(histogram.percentile(90)));
    p99.set(late(histogram.percentile(99)));
    histogram.reset();
  });
  const max = gauge(...GAUGES.max);
  const mean = gauge(...GAUGES.mean);
  const stddev = gauge(...GAUGES.stddev);
  const p50 = gauge(...GAUGES.p50);
  const p90 = gauge(...GAUGES.p90);
  const p99 = gauge(...GAUGES.p99);
}
