import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  connectNats,
  createLogger,
  EVENTS_STREAM,
  JetStreamBus,
  subjectFor,
  type EventEnvelope,
} from '@baas/common';
import { infra } from '../support/infra';
import { faultDatabase } from '../support/fault-store';
import { anotherGateway, freePort, ServiceProcess } from '../support/service-process';
import { findBinary, PostgresServer, ServerProcess } from '../support/server-process';
import { callService } from '../support/service-call';
import { until } from '../support/until';

/**
 * Issue 7: the database (PostgreSQL or FerretDB, as TEST_STORE says), NATS and Redis really
 * restart (down for a moment, started again on the same data) while a service is under load.
 * The servers are this test's own, so nothing else that shares the stack's servers is disturbed.
 */
const logger = createLogger('restart-test', 'silent');
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  while (stops.length > 0) await stops.pop()!().catch(() => undefined);
});

async function server<S extends { start(): Promise<void>; stop(): Promise<void> }>(s: S): Promise<S> {
  await s.start();
  stops.push(() => s.stop());
  return s;
}

/** The store's server, run by this test: PostgreSQL (initdb + pg_ctl) or FerretDB on SQLite. */
async function databaseServer(dir: string): Promise<PostgresServer | ServerProcess> {
  const port = await freePort();
  if (infra.store === 'postgres') {
    const pg = new PostgresServer(port);
    stops.push(() => pg.remove());
    return server(pg);
  }
  mkdirSync(join(dir, 'fdb'));
  return server(
    new ServerProcess(
      'ferretdb',
      findBinary('ferretdb'),
      [
        '--handler=sqlite',
        `--sqlite-url=file:${dir}/fdb/`,
        `--state-dir=${dir}`,
        `--listen-addr=127.0.0.1:${port}`,
        '--debug-addr=-',
        '--telemetry=disable',
      ],
      port,
    ),
  );
}

describe('faults: servers restart under load', () => {
  it(`loses no acknowledged write or event when the database (${infra.store}) and NATS restart, and recovers by itself`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baas-restart-'));
    stops.push(async () => rmSync(dir, { recursive: true, force: true }));
    const database = await databaseServer(dir);
    const natsPort = await freePort();
    const nats = await server(
      new ServerProcess(
        'nats',
        findBinary('nats-server'),
        ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(dir, 'nats')],
        natsPort,
      ),
    );
    const db = await faultDatabase('baas_data', {
      adminUrl: database instanceof PostgresServer ? database.url() : `mongodb://127.0.0.1:${database.port}`,
    });
    stops.push(() => db.close());
    const data = new ServiceProcess('data', await freePort(), {
      DATABASE_URL: db.url(),
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
    });
    await data.start();
    stops.push(() => data.stop());

    const nc: NatsConnection = await connectNats(`nats://127.0.0.1:${natsPort}`, 'restart-test', logger);
    stops.push(() => nc.drain());
    const bus = await JetStreamBus.create(nc, logger);
    const projectId = randomBytes(12).toString('hex');
    const events: EventEnvelope[] = [];
    const handle = await bus.consume({
      durable: 'restart-test',
      inactiveThresholdMs: 60_000,
      types: ['document.created'],
      handler: async (e) => void (e.projectId === projectId && events.push(e)),
    });
    stops.push(() => handle.stop());

    const call = (method: string, path: string, body?: unknown, admin = false) =>
      callService(data.url, 'data', method, path, { projectId, admin }, body);
    expect([200, 201]).toContain(
      (await call('PUT', `/api/admin/projects/${projectId}/collections/items`, {}, true)).status,
    );

    const acknowledged: string[] = [];
    const failures: number[] = [];
    let stop = false;
    const load = (async () => {
      for (let i = 0; !stop; i++) {
        const r: { status: number; body: Record<string, unknown> } = await call('POST', '/api/data/items', {
          n: i,
        }).catch(() => ({ status: 0, body: {} }));
        if (r.status === 201) acknowledged.push(String(r.body._id));
        else failures.push(r.status);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    // a failed wait below ends the test: the load must end with it, not go on through later files
    stops.push(async () => {
      stop = true;
      await load;
    });
    await until(() => acknowledged.length >= 10, 15_000, 'writes before the restarts');
    await nats.restart(1000);
    await until(() => acknowledged.length >= 20, 15_000, 'writes after the NATS restart');
    await database.restart(1000);
    let before = acknowledged.length;
    await until(() => acknowledged.length >= before + 10, 30_000, 'writes after the database restart');
    if (database instanceof PostgresServer) {
      // A crash (immediate shutdown, recovery at start): what was acknowledged was committed.
      await database.restart(1000, 'immediate');
      before = acknowledged.length;
      await until(() => acknowledged.length >= before + 10, 30_000, 'writes after the database crash');
    }
    stop = true;
    await load;

    // While the database was down the service answered 503, never 500, and it came back alone.
    expect(failures.filter((s) => s !== 503)).toEqual([]);
    const stored = await db.documentIds(projectId, 'items');
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    await until(
      () =>
        new Set(events.map((e) => (e.data as { documentId: string }).documentId)).size >= acknowledged.length,
      30_000,
      'every event',
    );
    await new Promise((r) => setTimeout(r, 1000));
    // One event per write: the relay's re-publishes keep the event's id (the stream drops them by
    // Nats-Msg-Id), and delivery is at least once: an ack lost while NATS stops is a redelivery of
    // the same id, which consumers skip. Two ids for one document would be a second event.
    const eventIds = new Map<string, Set<string>>();
    for (const e of events) {
      const doc = (e.data as { documentId: string }).documentId;
      eventIds.set(doc, (eventIds.get(doc) ?? new Set()).add(e.id));
    }
    expect([...eventIds].filter(([, ids]) => ids.size !== 1)).toEqual([]);
    expect(acknowledged.filter((id) => !eventIds.has(id))).toEqual([]);
    // And the stream (this test's own NATS) holds each event once: a relay's publish repeated
    // across the restart was dropped by the duplicate window, which NATS rebuilds from the stored
    // messages when it starts. Deliveries beyond one per event are then redeliveries.
    const subject = subjectFor('document.created');
    const info = await (await jetstreamManager(nc)).streams.info(EVENTS_STREAM, { subjects_filter: subject });
    const uniqueEvents = new Set(events.map((e) => e.id)).size;
    expect({ stored: info.state.subjects?.[subject] ?? 0, deliveries: events.length }).toEqual({
      stored: uniqueEvents,
      deliveries: expect.any(Number),
    });
  });

  it('keeps the gateway serving through a Redis restart and uses Redis again after it', async () => {
    const redisPort = await freePort();
    const redisServer = await server(
      new ServerProcess(
        'redis',
        findBinary('redis-server'),
        ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        redisPort,
      ),
    );
    const gw = await anotherGateway({
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMIT_GLOBAL_POINTS: '1000',
    });
    stops.push(() => gw.stop());
    const redis = new Redis(`redis://127.0.0.1:${redisPort}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    stops.push(async () => redis.disconnect());

    const statuses: number[] = [];
    let slowest = 0;
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const started = Date.now();
        const status = await fetch(`${gw.url}/api/data/none`, {
          headers: { 'x-forwarded-for': `10.77.${Math.floor(Math.random() * 250)}.1` },
          signal: AbortSignal.timeout(10_000),
        }).then(
          (r) => r.status,
          () => 0,
        );
        slowest = Math.max(slowest, Date.now() - started);
        statuses.push(status);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    stops.push(async () => {
      stop = true;
      await load;
    });
    await until(() => statuses.length >= 20, 10_000, 'requests before the restart');
    await redisServer.restart(1000);
    const before = statuses.length;
    await until(() => statuses.length >= before + 40, 15_000, 'requests after the restart');
    // The restarted Redis starts empty: rate-limit keys in it show the gateway uses it again.
    await until(
      async () => (await redis.keys('rl:global*')).length > 0,
      10_000,
      'rate-limit keys in the restarted Redis',
    );
    stop = true;
    await load;
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    expect(slowest).toBeLessThan(2000);
  });
});
