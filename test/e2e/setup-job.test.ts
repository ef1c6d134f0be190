import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectNats,
  createLogger,
  DLQ_STREAM,
  EVENTS_STREAM,
  JetStreamBus,
  missingStreams,
} from '@baas/common';
import { faultDatabase, type FaultDatabase } from '../support/fault-store';
import { infra } from '../support/infra';
import { findBinary, ServerProcess } from '../support/server-process';
import { freePort, ServiceProcess } from '../support/service-process';

/**
 * The setup Job (issue 13): `node services/<svc>/dist/setup.js` makes what a service needs —
 * migrations (PostgreSQL) or indexes (MongoDB), and the JetStream streams — so that replicas
 * started with DB_MIGRATE_ON_BOOT=false do none of it. On a NATS server and a database of the
 * test's own (both empty), on the store TEST_STORE names.
 */
const ROOT = join(__dirname, '..', '..');
const logger = createLogger('setup-test', 'silent');
let dir: string;
let nats: ServerProcess;
let natsUrl: string;
let nc: NatsConnection;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baas-setup-nats-'));
  const port = await freePort();
  nats = new ServerProcess(
    'nats-server',
    findBinary('nats-server'),
    ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
    port,
  );
  await nats.start();
  natsUrl = `nats://127.0.0.1:${port}`;
  nc = await connectNats(natsUrl, 'setup-test', logger);
});

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

afterAll(async () => {
  await nc?.drain();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function setup(service: string, db: FaultDatabase) {
  return spawnSync(process.execPath, [join(ROOT, 'services', service, 'dist', 'setup.js')], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url(), NATS_URL: natsUrl, LOG_LEVEL: 'info' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** What the setup made in the service's database: its tables (PostgreSQL) or indexes (MongoDB). */
async function schemaOf(db: FaultDatabase, table: string): Promise<string[]> {
  if (infra.store === 'postgres') {
    const c = new Client({ connectionString: db.url() });
    await c.connect();
    try {
      const { rows } = await c.query<{ name: string }>(
        `SELECT indexname AS name FROM pg_indexes WHERE tablename = $1 ORDER BY 1`,
        [table],
      );
      return rows.map((r) => r.name);
    } finally {
      await c.end();
    }
  }
  const client = await MongoClient.connect(db.url());
  try {
    const indexes = await client
      .db()
      .collection(table)
      .indexes()
      .catch(() => []);
    return indexes.map((i) => String(i.name)).filter((n) => n !== '_id_');
  } finally {
    await client.close();
  }
}

describe(`the setup Job (${infra.store})`, () => {
  it('makes the streams and the schema, after which a replica that does not set up starts', async () => {
    const db = await faultDatabase('setup_data');
    cleanups.push(() => db.close());
    const jsm = await jetstreamManager(nc);
    expect(await missingStreams(jsm)).toEqual([EVENTS_STREAM, DLQ_STREAM]);
    await expect(JetStreamBus.create(nc, logger, { ensure: false, service: 'data' })).rejects.toThrow(
      /missing: run the setup Job \(node services\/data\/dist\/setup\.js\)/,
    );

    // A replica that may not set up refuses to start while the streams are missing.
    const earlyPort = await freePort();
    const early = new ServiceProcess('data', earlyPort, {
      DATABASE_URL: db.url(),
      NATS_URL: natsUrl,
      DB_MIGRATE_ON_BOOT: 'false',
    });
    cleanups.push(() => early.stop());
    await expect(early.start()).rejects.toThrow(/exited with 1/);
    const earlyLog = readFileSync(join(ROOT, '.stack', 'logs', `test-data-${earlyPort}.log`), 'utf8');
    expect(earlyLog).toContain('missing: run the setup Job (node services/data/dist/setup.js)');

    const first = setup('data', db);
    expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: '' });
    expect(first.stdout).toContain('setup done');
    expect(await missingStreams(jsm)).toEqual([]);
    // the catalogue's table and indexes (PostgreSQL: migrations) or its indexes (MongoDB)
    expect((await schemaOf(db, 'collections')).length).toBeGreaterThan(0);

    // Idempotent: a second run (another release, a retry of the Job) changes nothing and succeeds.
    expect(setup('data', db).status).toBe(0);

    const replica = new ServiceProcess('data', await freePort(), {
      DATABASE_URL: db.url(),
      NATS_URL: natsUrl,
      DB_MIGRATE_ON_BOOT: 'false',
    });
    cleanups.push(() => replica.stop());
    await replica.start();
    expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
  });

  it.each(['auth', 'storage', 'mail'])('sets %s up the same way', async (service) => {
    const db = await faultDatabase(`setup_${service}`);
    cleanups.push(() => db.close());
    const r = setup(service, db);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const table = { auth: 'users', storage: 'files', mail: 'templates' }[service]!;
    expect((await schemaOf(db, table)).length).toBeGreaterThan(0);
  });
});
