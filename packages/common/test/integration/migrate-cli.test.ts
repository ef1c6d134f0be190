import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createLogger } from '../../src/logger';
import { main } from '../../src/postgres/migrate-cli';
import { infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';

/**
 * The one-shot migration entry of the k8s Job: against a database owned by a role of its own (as
 * deployed: no superuser), with a service of the test's own under a temporary root.
 */
const logger = createLogger('migrate-cli-test', 'silent');
const name = uniqueDbName('migrate_cli').toLowerCase();
const password = 'migrate-cli-test-pw';
let root: string;
let url: string;

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: infra.postgresAdminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function tables(): Promise<string[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ t: string }>(
      "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
    );
    return r.rows.map((x) => x.t);
  } finally {
    await c.end();
  }
}

function withDatabaseUrl<T>(value: string | undefined, run: () => Promise<T>): Promise<T> {
  const before = process.env.DATABASE_URL;
  if (value === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = value;
  return run().finally(() => {
    if (before === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = before;
  });
}

beforeAll(async () => {
  await requireInfra('postgres');
  await admin(`CREATE ROLE "${name}" LOGIN PASSWORD '${password}'`);
  await admin(`CREATE DATABASE "${name}" OWNER "${name}"`);
  await admin(`REVOKE ALL ON DATABASE "${name}" FROM PUBLIC`);
  const u = new URL(infra.postgresAdminUrl);
  u.username = name;
  u.password = password;
  u.pathname = `/${name}`;
  url = u.toString();
  root = mkdtempSync(path.join(tmpdir(), 'migrate-cli-'));
  mkdirSync(path.join(root, 'services', 'demo', 'migrations'), { recursive: true });
  writeFileSync(
    path.join(root, 'services', 'demo', 'migrations', '0001_widgets.sql'),
    '-- Up Migration\nCREATE TABLE widgets (id bigint PRIMARY KEY);\n\n-- Down Migration\nDROP TABLE widgets;\n',
  );
});

afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`DROP ROLE IF EXISTS "${name}"`);
});

describe('migrate-cli', () => {
  it('reports pending migrations, applies the kernel and service sets as the service role, then reports none', async () => {
    await withDatabaseUrl(url, async () => {
      expect(await main(['demo', '--check'], logger, root)).toBe(3);
      expect(await tables()).toEqual([]);

      expect(await main(['demo'], logger, root)).toBe(0);
      expect(await tables()).toEqual([
        'kernel_migrations',
        'outbox',
        'processed_events',
        'service_migrations',
        'widgets',
      ]);
      expect(await main(['demo', '--check'], logger, root)).toBe(0);
      // a second run (the Job retried, or the next release with nothing new) changes nothing
      expect(await main(['demo'], logger, root)).toBe(0);
    });
  });

  it('has nothing to do on a MongoDB URL', async () => {
    await withDatabaseUrl('mongodb://127.0.0.1:1/baas_demo', async () => {
      expect(await main(['demo'], logger, root)).toBe(0);
      expect(await main(['demo', '--check'], logger, root)).toBe(0);
    });
  });

  it('exits 2 on bad usage or configuration and 1 when the database is unreachable', async () => {
    await withDatabaseUrl(url, async () => {
      expect(await main([], logger, root)).toBe(2);
      expect(await main(['no-such-service'], logger, root)).toBe(2);
      expect(await main(['demo', 'extra'], logger, root)).toBe(2);
    });
    await withDatabaseUrl(undefined, async () => expect(await main(['demo'], logger, root)).toBe(2));
    await withDatabaseUrl('mysql://x/y', async () => expect(await main(['demo'], logger, root)).toBe(2));
    const closed = new URL(url);
    closed.port = '1';
    await withDatabaseUrl(closed.toString(), async () => expect(await main(['demo'], logger, root)).toBe(1));
  });
});
