import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../logger';
import { createMetrics } from '../metrics';
import { createServiceApp } from './bootstrap';
import { serveLean } from './lean';

/** The in-flight gauge of a service app: up while a request is being answered, down after. */
describe('requests in flight', () => {
  it('counts a request from its arrival to its answer, and one its client abandoned', async () => {
    const svc = createServiceApp({ service: 'svc', logger: createLogger('t', 'silent'), readiness: [] });
    let release!: () => void;
    let arrived!: () => void;
    const inHandler = new Promise<void>((r) => (arrived = r));
    svc.app.get('/slow', (_req, res) => {
      arrived();
      release = () => res.end('ok');
    });
    const server = http.createServer(svc.finish());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const gauge = async () =>
      Number(
        /^baas_http_server_requests_in_flight\{[^}]*\} (\d+)$/m.exec(
          await svc.metrics.registry.metrics(),
        )?.[1],
      );
    try {
      const answered = new Promise<void>((resolve) =>
        http.get({ port, host: '127.0.0.1', path: '/slow' }, (res) => res.resume().on('end', resolve)),
      );
      await inHandler;
      expect(await gauge()).toBe(1);
      release();
      await answered;
      await new Promise((r) => setImmediate(r));
      expect(await gauge()).toBe(0);

      // a client that goes away before its answer is not in flight any more either
      const gone = http.get({ port, host: '127.0.0.1', path: '/slow' }).on('error', () => undefined);
      await new Promise<void>((r) => {
        const t = setInterval(() => {
          void gauge().then((n) => {
            if (n === 1) {
              clearInterval(t);
              r();
            }
          });
        }, 5);
      });
      gone.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect(await gauge()).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("counts a hot route's request served without express alike", async () => {
    const metrics = createMetrics('svc');
    let release!: () => void;
    let arrived!: () => void;
    const inHandler = new Promise<void>((r) => (arrived = r));
    const server = http.createServer((req, res) =>
      serveLean({ logger: createLogger('t', 'silent'), metrics }, req, res, '/hot', async () => {
        arrived();
        await new Promise<void>((r) => (release = r));
        return { status: 200, body: { ok: true } };
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const gauge = async () =>
      Number(
        /^baas_http_server_requests_in_flight\{[^}]*\} (\d+)$/m.exec(await metrics.registry.metrics())?.[1],
      );
    try {
      const answered = new Promise<void>((resolve) =>
        http.get({ port, host: '127.0.0.1', path: '/hot' }, (res) => res.resume().on('end', resolve)),
      );
      await inHandler;
      expect(await gauge()).toBe(1);
      release();
      await answered;
      await new Promise((r) => setImmediate(r));
      expect(await gauge()).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
