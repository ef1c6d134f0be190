import client from 'prom-client';
import { registerEventLoopLag, UNUSED_DEFAULT_PRECISION_MS } from './event-loop-lag';
import { createMetrics } from './metrics';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The nodejs_eventloop_lag_* values of one scrape, by name without prefix and unit. */
async function scrape(registry: client.Registry): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of await registry.getMetricsAsJSON()) {
    const k = /^nodejs_eventloop_lag_(\w+)_seconds$/.exec(m.name)?.[1];
    if (k) out[k] = (m.values as { value: number }[])[0]?.value ?? NaN;
  }
  return out;
}

function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // block the event loop
  }
}

describe('registerEventLoopLag', () => {
  let registry: client.Registry;
  beforeEach(() => {
    registry = new client.Registry();
    client.collectDefaultMetrics({
      register: registry,
      eventLoopMonitoringPrecision: UNUSED_DEFAULT_PRECISION_MS,
    });
    registerEventLoopLag(registry, 20);
  });

  it('replaces the default gauges, once each, beside the lag measured at each scrape', async () => {
    await sleep(100);
    const names = (await registry.getMetricsAsJSON())
      .map((m) => m.name)
      .filter((n) => n.startsWith('nodejs_eventloop_lag'));
    expect(names.sort()).toEqual(
      ['', '_max', '_mean', '_min', '_p50', '_p90', '_p99', '_stddev']
        .map((s) => `nodejs_eventloop_lag${s}_seconds`)
        .sort(),
    );
  });

  it('reports how late the samples were, not the sampling interval (an idle loop reads near 0)', async () => {
    await scrape(registry); // a new window
    await sleep(300);
    const v = await scrape(registry);
    // prom-client's gauges would read the 20 ms interval itself (and more) here
    expect(v.p50).toBeGreaterThanOrEqual(0);
    expect(v.p50).toBeLessThan(0.015);
    expect(v.min).toBeGreaterThanOrEqual(0);
    expect(v.min).toBeLessThanOrEqual(v.p50!);
  });

  it('records a stall as its length', async () => {
    await scrape(registry);
    await sleep(50);
    busy(250);
    await sleep(60);
    const v = await scrape(registry);
    expect(v.max).toBeGreaterThan(0.2);
    expect(v.max).toBeLessThan(0.6); // a loaded machine may add to it
    expect(v.p50).toBeLessThan(0.015);
  });

  it('keeps the previous values when no sample was taken since the last scrape', async () => {
    await sleep(100);
    const first = await scrape(registry);
    const again = await scrape(registry); // the same tick: no sample in between
    for (const k of ['min', 'max', 'mean', 'p50', 'p90', 'p99']) {
      expect(again[k]).toBe(first[k]);
      expect(again[k]).toBeLessThan(1);
    }
  });
});

describe('createMetrics', () => {
  it("reports an idle service's event-loop lag near 0, not its one-second sampling interval", async () => {
    const { registry } = createMetrics('test');
    await sleep(2300); // two samples at one a second
    const v = await scrape(registry);
    expect(v.p50).toBeGreaterThanOrEqual(0);
    expect(v.p50).toBeLessThan(0.1);
    expect(v.max).toBeLessThan(0.5); // prom-client's gauges: 1.0 and more
  });
});
