import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../logger';
import { createMetrics, type Metrics } from '../metrics';
import { createServiceApp } from './bootstrap';
import { serveLean } from './lean';

const logger = createLogger('t', 'silent');

/** A server whose `/slow` requests wait for `release()`; `gauge()` reads the in-flight metric. */
async function slowServer(listener: (metrics: Metrics, wait: () => Promise<void>) => http.RequestListener) {
  const metrics = createMetrics('svc');
  const releases: Array<() => void> = [];
  const wait = () => new Promise<void>((r) => releases.push(r));
  const server = http.createServer(listener(metrics, wait));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const gauge = async () =>
    Number(
      /^baas_http_server_requests_in_flight\{[^}]*\} (\d+)$/m.exec(await metrics.registry.metrics())?.[1],
    );
  /** Waits (at most 2 s) for the gauge to read n, and says what it read last. */
  const until = async (n: number) => {
    const deadline = Date.now() + 2000;
    while ((await gauge()) !== n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(await gauge()).toBe(n);
  };
  return {
    gauge,
    until,
    /** A request to /slow: its answer once released, and the request itself (to abandon it). */
    get() {
      let req!: http.ClientRequest;
      const answered = new Promise<void>((resolve, reject) => {
        req = http.get({ port, host: '127.0.0.1', path: '/slow' }, (res) => res.resume().on('end', resolve));
        req.on('error', reject);
      });
      answered.catch(() => undefined); // a failed test closes the server under it
      return { answered, req };
    },
    releaseAll: () => releases.splice(0).forEach((r) => r()),
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The in-flight gauge: up while a request is being answered, down after, on either HTTP path. */
describe('requests in flight', () => {
  it('counts a request from its arrival to its answer, and one its client abandoned', async () => {
    const s = await slowServer((metrics, wait) => {
      const svc = createServiceApp({ service: 'svc', logger, readiness: [], metrics });
      svc.app.get('/slow', (_req, res) => void wait().then(() => res.end('ok')));
      return svc.finish();
    });
    try {
      const first = s.get();
      await s.until(1);
      s.releaseAll();
      await first.answered;
      await s.until(0);

      // a client that goes away before its answer is not in flight any more either
      const gone = s.get();
      await s.until(1);
      gone.req.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect(await s.gauge()).toBe(0);
    } finally {
      s.releaseAll();
      s.close();
    }
  });

  it("counts a hot route's request served without express alike", async () => {
    const s = await slowServer(
      (metrics, wait) => (req, res) =>
        serveLean({ logger, metrics }, req, res, '/slow', async () => {
          await wait();
          return { status: 200, body: { ok: true } };
        }),
    );
    try {
      const r = s.get();
      await s.until(1);
      s.releaseAll();
      await r.answered;
      await s.until(0);
    } finally {
      s.close();
    }
  });
});
