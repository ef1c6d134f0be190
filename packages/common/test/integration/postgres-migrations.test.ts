import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { createLogger } from '../../src';
import { migratePostgres } from '../../src/postgres';
import { bareDatabase, NEEDS_KERNEL, NO_MIGRATIONS } from './pg-support';

const logger = createLogger('migrate-test', 'silent');

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

interface Applied {
  name: string;
  run_on: Date;
}
const applied = (url: string, table: string) =>
  query<Applied>(url, `SELECT name, run_on FROM ${table} ORDER BY id`);

describe('migratePostgres', () => {
  let db: { url: string; drop: () => Promise<void> };
  beforeEach(async () => {
    db = await bareDatabase('pgmigrate');
  });
  afterEach(() => db.drop());

  it('applies the kernel migrations before the service ones, and a second run changes nothing', async () => {
    await migratePostgres(db.url, NEEDS_KERNEL, logger);
    const kernel = await applied(db.url, 'kernel_migrations');
    const service = await applied(db.url, 'service_migrations');
    expect(kernel.map((m) => m.name)).toEqual([
      '0001_outbox_and_processed_events',
      '0002_processed_events_lease',
    ]);
    // The service migration reads `outbox`: it could only apply after the kernel's.
    expect(service.map((m) => m.name)).toEqual(['0001_outbox_backlog']);
    expect(service[0]!.run_on.getTime()).toBeGreaterThanOrEqual(kernel.at(-1)!.run_on.getTime());
    expect(await query(db.url, 'SELECT pending FROM outbox_backlog')).toEqual([{ pending: '0' }]);

    await migratePostgres(db.url, NEEDS_KERNEL, logger);
    expect(await applied(db.url, 'kernel_migrations')).toEqual(kernel);
    expect(await applied(db.url, 'service_migrations')).toEqual(service);
  });

  it('logs what it applied and no error (numbered files are not timestamps, and that is fine)', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const capture = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    await migratePostgres(db.url, NEEDS_KERNEL, capture);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(['migrations applied', 'migrations applied']);
  });

  it('lets replicas that start at the same moment all boot, applying each migration once', async () => {
    await Promise.all([1, 2, 3].map(() => migratePostgres(db.url, NEEDS_KERNEL, logger)));
    expect((await applied(db.url, 'kernel_migrations')).map((m) => m.name)).toEqual([
      '0001_outbox_and_processed_events',
      '0002_processed_events_lease',
    ]);
    expect((await applied(db.url, 'service_migrations')).map((m) => m.name)).toEqual(['0001_outbox_backlog']);
  });

  it('with no service migrations creates only the kernel tables', async () => {
    await migratePostgres(db.url, NO_MIGRATIONS, logger);
    const tables = await query<{ table_name: string }>(
      db.url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'kernel_migrations',
      'outbox',
      'processed_events',
      'service_migrations',
    ]);
  });

  it('rolls back a failing migration and releases the lock, so a fixed one applies next boot', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgmigrate-'));
    try {
      const file = path.join(dir, '0001_widgets.sql');
      await writeFile(
        file,
        '-- Up Migration\nCREATE TABLE widgets (id int);\nINSERT INTO no_such_table VALUES (1);\n-- Down Migration\nDROP TABLE widgets;\n',
      );
      await expect(migratePostgres(db.url, dir, logger)).rejects.toThrow(/no_such_table/);
      expect(await applied(db.url, 'service_migrations')).toEqual([]);
      expect(await query(db.url, "SELECT to_regclass('widgets') AS t")).toEqual([{ t: null }]);

      await writeFile(
        file,
        '-- Up Migration\nCREATE TABLE widgets (id int);\n-- Down Migration\nDROP TABLE widgets;\n',
      );
      await migratePostgres(db.url, dir, logger);
      expect((await applied(db.url, 'service_migrations')).map((m) => m.name)).toEqual(['0001_widgets']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
