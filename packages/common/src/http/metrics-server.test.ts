import type { AddressInfo } from 'node:net';
import { createMetrics } from '../metrics';
import { startMetricsServer } from './bootstrap';

describe("startMetricsServer (the gateway's separate /metrics listener, without express)", () => {
  it('answers GET and HEAD /metrics with the registry, anything else 404', async () => {
    const metrics = createMetrics('metrics-server-test');
    const server = await startMetricsServer(metrics, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const get = await fetch(`${base}/metrics?x=1`);
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toBe(metrics.registry.contentType);
      expect(await get.text()).toContain('baas_build_info');
      const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
      expect((await fetch(`${base}/metricsx`)).status).toBe(404);
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
