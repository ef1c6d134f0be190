import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createServiceApp } from '../../src';
import { createPostgresPool, postgresReadiness, withTransaction, type Pool } from '../../src/postgres';
import { infra } from '../../../../test/support/infra';
import { freshPostgresDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { TcpProxy } from '../../../../test/support/tcp-proxy';
import { until } from '../../../../test/support/until';
import { NO_MIGRATIONS } from './pg-support';

const logger = createLogger('pg-errors-test', 'silent');
let db: TestDatabase;
let proxy: TcpProxy;
/** Reaches PostgreSQL through the proxy, which a test cuts: a partition of this process. */
let partitioned: Pool;
let server: http.Server;
let base: string;

/** The same URL, on another host:port. */
function via(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** An app like a service's: the bootstrap's error handler renders what the routes throw. */
function buildApp(pool: Pool): http.Server {
  const svc = createServiceApp({ service: 'pg-errors', logger, readiness: [postgresReadiness(pool)] });
  svc.app.get('/slow', async (_req, res) => {
    await withTransaction(pool, async (tx) => {
      await tx.query("SET LOCAL statement_timeout = '200ms'");
      await tx.query('SELECT pg_sleep(5)');
    });
    res.json({ ok: true });
  });
  svc.app.get('/read', async (_req, res) => {
    res.json((await pool.query('SELECT 1 AS ok')).rows[0]);
  });
  svc.app.get('/write', async (_req, res) => {
    await withTransaction(pool, async (tx) => {
      await tx.query('INSERT INTO notes (at) VALUES (now())');
      await tx.query('SELECT pg_sleep(0.5)');
    });
    res.json({ ok: true });
  });
  return http.createServer(svc.finish());
}

beforeAll(async () => {
  db = await freshPostgresDatabase('pgerrors', NO_MIGRATIONS);
  await db.pool.query('CREATE TABLE notes (at timestamptz)');
  proxy = new TcpProxy('127.0.0.1', Number(new URL(infra.postgresAdminUrl).port || 5432));
  await proxy.start();
  partitioned = createPostgresPool(via(db.url, proxy.port), 'pg-errors', logger, {
    connectionTimeoutMillis: 1000,
  });
  server = buildApp(partitioned);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await partitioned?.end();
  await proxy?.cut();
  await db?.drop();
});

async function get(path: string) {
  const res = await fetch(base + path);
  const body = (await res.json()) as { code?: string };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
}

describe('PostgreSQL errors through the service error handler', () => {
  it('answers 504 QUERY_TIMEOUT for a statement over its statement_timeout', async () => {
    const r = await get('/slow');
    expect(r.status).toBe(504);
    expect(r.body.code).toBe('QUERY_TIMEOUT');
    expect((await get('/read')).status).toBe(200);
  });

  it('answers 503 with Retry-After while PostgreSQL is unreachable, and recovers by itself', async () => {
    expect((await get('/read')).status).toBe(200);
    // Cut while a transaction is in flight: its connection drops under it.
    const inFlight = get('/write');
    await new Promise((r) => setTimeout(r, 150));
    await proxy.cut();
    const during = [await inFlight, await get('/read'), await get('/write'), await get('/slow')];
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(r.retryAfter).toBe('1');
      expect(r.body.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect((await get('/readyz')).status).toBe(503);

    await proxy.restore();
    await until(async () => (await get('/read')).status === 200, 10_000, 'reads to succeed again');
    expect((await get('/write')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
  });

  it('answers 503 when PostgreSQL stops answering (packets dropped), instead of hanging, and recovers', async () => {
    const silent = new TcpProxy('127.0.0.1', Number(new URL(infra.postgresAdminUrl).port || 5432));
    const port = await silent.start();
    // A tight statement budget keeps the client's own limit (budget + margin) short for the test.
    const pool = createPostgresPool(via(db.url, port), 'pg-silent', logger, {
      statement_timeout: 1000,
      connectionTimeoutMillis: 1000,
    });
    const app = buildApp(pool);
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const status = (path: string) => fetch(url + path).then((r) => r.status);
      // Connections in the pool first, so the statements below go to open connections.
      expect(await Promise.all([status('/read'), status('/read')])).toEqual([200, 200]);
      silent.stall();
      // Open connections whose server is silent, and new connections nobody answers.
      expect(
        await Promise.all([status('/read'), status('/write'), status('/read'), status('/read')]),
      ).toEqual([503, 503, 503, 503]);
      silent.unstall();
      await until(async () => (await status('/read')) === 200, 10_000, 'reads to succeed again');
      expect(await status('/write')).toBe(200);
    } finally {
      await new Promise((resolve) => app.close(resolve));
      await pool.end();
      await silent.cut();
    }
  });

  it('answers 503, not 500, when nothing listens on the database port', async () => {
    const closed = new TcpProxy('127.0.0.1', 9);
    const port = await closed.start();
    await closed.cut();
    const pool = createPostgresPool(via(db.url, port), 'pg-closed', logger, {
      connectionTimeoutMillis: 1000,
    });
    const app = buildApp(pool);
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      for (const path of ['/read', '/write']) {
        const res = await fetch(url + path);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
      }
    } finally {
      await new Promise((resolve) => app.close(resolve));
      await pool.end();
    }
  });
});
