import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, createLogger, JetStreamBus, type EventEnvelope, type EventType } from '@baas/common';
import { stackEnv, stackNatsAuth } from '../support/stack-env';
import { randomIp } from '../support/e2e';
import { TcpProxy } from '../support/tcp-proxy';
import { anotherGateway, freePort, ServiceProcess } from '../support/service-process';
import { infra } from '../support/infra';
import { faultDatabase } from '../support/fault-store';
import { callService as call } from '../support/service-call';
import { until } from '../support/until';

/**
 * Issue 7 fault tests. Each starts its own process of a service, on a database of its own on the
 * store TEST_STORE names (PostgreSQL by default, or MongoDB), with one dependency behind a TCP
 * proxy; then cuts that dependency (a partition, as when the server restarts) or kills the
 * process (SIGKILL, no shutdown hooks) at a chosen moment, and checks that every write the API
 * acknowledged and every event of it survives, and that the process recovers by itself.
 */
const env = stackEnv();
const logger = createLogger('fault-test', 'silent');
let nc: NatsConnection;
let bus: JetStreamBus;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  nc = await connectNats(env.NATS_URL ?? 'nats://127.0.0.1:4222', 'fault-test', logger, stackNatsAuth(env));
  bus = await JetStreamBus.create(nc, logger);
});

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

afterAll(async () => {
  await nc?.drain();
});

function hostPort(url: string, def: number): [string, number] {
  const u = new URL(url.replace(/^(nats|redis):/, 'http:'));
  return [u.hostname, Number(u.port || def)];
}

async function proxy(host: string, port: number): Promise<TcpProxy> {
  const p = new TcpProxy(host, port);
  await p.start();
  cleanups.push(() => p.cut());
  return p;
}

const proxyTo = (url: string, def: number) => proxy(...hostPort(url, def));

/** A database of the test's own on the store under test, dropped after the test. */
async function database(prefix: string) {
  const db = await faultDatabase(prefix);
  cleanups.push(() => db.close());
  return db;
}

async function service(name: string, extraEnv: Record<string, string>): Promise<ServiceProcess> {
  const s = new ServiceProcess(name, await freePort(), extraEnv);
  await s.start();
  cleanups.push(() => s.stop());
  return s;
}

/** Collects the events of some types whose data/project match, from a fresh durable consumer. */
async function collect(types: EventType[], match: (e: EventEnvelope) => boolean) {
  const seen: EventEnvelope[] = [];
  const handle = await bus.consume({
    durable: `fault-${randomBytes(5).toString('hex')}`,
    inactiveThresholdMs: 60_000,
    deliverNew: true,
    types,
    handler: async (e) => void (match(e) && seen.push(e)),
  });
  cleanups.push(async () => {
    await handle.stop();
  });
  return seen;
}

describe('faults: events are never lost', () => {
  it('delivers, exactly once, the event of a write acknowledged while NATS was unreachable and the service then crashed', async () => {
    const natsProxy = await proxyTo(env.NATS_URL ?? 'nats://127.0.0.1:4222', 4222);
    const db = await database('fault_auth');
    const auth = await service('auth', {
      DATABASE_URL: db.url(),
      NATS_URL: `nats://127.0.0.1:${natsProxy.port}`,
    });
    const events = await collect(['project.created'], () => true);

    await natsProxy.cut();
    const created = await call(
      auth.url,
      'auth',
      'POST',
      '/api/admin/projects',
      { admin: true },
      { name: 'fault' },
    );
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    await new Promise((r) => setTimeout(r, 1500));
    await auth.kill();

    // The acknowledged write is there, with its event still pending beside it (in the same
    // transaction's outbox row on PostgreSQL, in the same document on MongoDB).
    expect(await db.pendingEvents(id, 'project.created')).toBe(1);
    expect(events.filter((e) => e.projectId === id)).toHaveLength(0);

    await natsProxy.restore();
    await auth.start();
    await until(() => events.some((e) => e.projectId === id), 15_000, 'the project.created event');
    await new Promise((r) => setTimeout(r, 1500));
    expect(events.filter((e) => e.projectId === id)).toHaveLength(1);
    await until(
      async () => (await db.pendingEvents(id, 'project.created')) === 0,
      5000,
      'the outbox to be cleared',
    );
  });

  it(`loses no acknowledged write or event when the database (${infra.store}) and NATS go away under load, and recovers by itself`, async () => {
    const db = await database('fault_data');
    const dbProxy = await proxy(db.host, db.port);
    const natsProxy = await proxyTo(env.NATS_URL ?? 'nats://127.0.0.1:4222', 4222);
    const data = await service('data', {
      DATABASE_URL: db.url(dbProxy.port),
      NATS_URL: `nats://127.0.0.1:${natsProxy.port}`,
    });
    const projectId = randomBytes(12).toString('hex');
    const reg = await call(data.url, 'data', 'PUT', `/api/admin/projects/${projectId}/collections/items`, {
      admin: true,
      projectId,
    });
    expect([200, 201]).toContain(reg.status);
    const events = await collect(['document.created'], (e) => e.projectId === projectId);

    const acknowledged: string[] = [];
    const failures: number[] = [];
    let stop = false;
    const load = (async () => {
      for (let i = 0; !stop; i++) {
        const r: { status: number; body: Record<string, unknown> } = await call(
          data.url,
          'data',
          'POST',
          '/api/data/items',
          { projectId },
          { n: i },
        ).catch(() => ({ status: 0, body: {} }));
        if (r.status === 201) acknowledged.push(String(r.body._id));
        else failures.push(r.status);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    // a failed wait below ends the test: the load must end with it, not go on through later files
    cleanups.push(async () => {
      stop = true;
      await load;
    });
    await until(() => acknowledged.length >= 10, 10_000, 'writes before the faults');
    await natsProxy.cut();
    await until(() => acknowledged.length >= 20, 10_000, 'writes while NATS is away');
    await dbProxy.cut();
    await new Promise((r) => setTimeout(r, 2000));
    await dbProxy.restore();
    await natsProxy.restore();
    const before = acknowledged.length;
    await until(() => acknowledged.length >= before + 10, 30_000, 'writes after recovery');
    stop = true;
    await load;

    // Refusals during the outage are 503s in the error body, never 500s.
    expect(failures.filter((s) => s !== 503)).toEqual([]);
    // Every acknowledged write is stored ...
    const stored = await db.documentIds(projectId, 'items');
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // ... and has its event, exactly once.
    await until(
      () =>
        new Set(events.map((e) => (e.data as { documentId: string }).documentId)).size >= acknowledged.length,
      30_000,
      'every document.created event',
    );
    await new Promise((r) => setTimeout(r, 1000));
    const ids = events.map((e) => (e.data as { documentId: string }).documentId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(acknowledged.every((id) => ids.includes(id))).toBe(true);
  });
});

describe('faults: Redis', () => {
  it('keeps serving and keeps limiting from memory while Redis is away, and uses Redis again after', async () => {
    const redisProxy = await proxyTo(env.REDIS_URL ?? 'redis://127.0.0.1:6379', 6379);
    const gw = await anotherGateway({
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      RATE_LIMIT_GLOBAL_POINTS: '20',
    });
    cleanups.push(() => gw.stop());
    const get = (ip: string) =>
      fetch(`${gw.url}/api/data/none`, { headers: { 'x-forwarded-for': ip } }).then((r) => r.status);
    // Fresh addresses each run: Redis keeps counters for the whole window across runs.
    const [ipBefore, ipDuring, ipAfter] = [randomIp(), randomIp(), randomIp()];

    expect(await get(ipBefore)).toBe(401);
    await redisProxy.cut();
    const during: number[] = [];
    for (let i = 0; i < 21; i++) during.push(await get(ipDuring));
    expect(during).toEqual([...Array(20).fill(401), 429]);
    await redisProxy.restore();
    await new Promise((r) => setTimeout(r, 2500));
    const after: number[] = [];
    for (let i = 0; i < 5; i++) after.push(await get(ipAfter));
    expect(after).toEqual([401, 401, 401, 401, 401]);
  });
});
