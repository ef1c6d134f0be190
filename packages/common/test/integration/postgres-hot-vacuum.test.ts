import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src';
import { createPostgresPool, HotTableVacuum, PgOutboxRelay, type Pool } from '../../src/postgres';
import { freshPostgresDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { until } from '../../../../test/support/until';
import { adminQuery, NO_MIGRATIONS } from './pg-support';

const logger = createLogger('pg-hot-vacuum-test', 'silent');
const NEVER_MS = 3_600_000;
const DEAD = 500;

let db: TestDatabase;
const pools: Pool[] = [];
const stops: Array<() => Promise<void>> = [];

async function stats(table: string): Promise<{ dead: number; vacuums: number }> {
  const { rows } = await db.pool.query<{ dead: string; vacuums: string }>(
    'SELECT n_dead_tup AS dead, vacuum_count AS vacuums FROM pg_stat_user_tables WHERE relname = $1',
    [table],
  );
  return { dead: Number(rows[0]?.dead ?? 0), vacuums: Number(rows[0]?.vacuums ?? 0) };
}

/** `n` rows of `table` deleted and written again, as the outbox and the index counts are. */
async function churn(table: string, n: number): Promise<void> {
  const c = await db.pool.connect();
  try {
    await c.query(`INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, $1::int) g`, [n]);
    // report at the end of the next transaction rather than when the backend next idles (PG 15+)
    await c.query('SELECT pg_stat_force_next_flush()');
    await c.query(`DELETE FROM ${table}`);
  } finally {
    c.release();
  }
}

/** Statistics reach pg_stat_user_tables when a backend reports them (within about a second). */
async function deadRowsReported(table: string, atLeast: number): Promise<void> {
  await until(
    async () => (await stats(table)).dead >= atLeast,
    15_000,
    `${atLeast} dead rows in ${table}`,
    200,
  );
}

function vacuum(tables: string[], opts: { intervalMs?: number; deadRows?: number } = {}, log = logger) {
  const v = new HotTableVacuum(db.pool, tables, log, { intervalMs: NEVER_MS, deadRows: DEAD, ...opts });
  stops.push(() => v.stop());
  return v;
}

beforeAll(async () => {
  db = await freshPostgresDatabase('pghotvacuum', NO_MIGRATIONS);
  for (const t of ['hot_a', 'hot_b', 'cold'])
    await db.pool.query(`CREATE TABLE ${t} (id int PRIMARY KEY, n int NOT NULL)`);
});

afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()));
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

afterAll(async () => {
  await db?.drop();
});

describe('HotTableVacuum', () => {
  it('vacuums a listed table at the threshold of dead rows, and only the listed ones', async () => {
    await churn('hot_a', DEAD);
    await churn('cold', DEAD);
    await deadRowsReported('hot_a', DEAD);
    await deadRowsReported('cold', DEAD);
    const before = { hot: await stats('hot_a'), cold: await stats('cold') };
    await expect(vacuum(['hot_a']).pass()).resolves.toEqual(['hot_a']);
    const after = { hot: await stats('hot_a'), cold: await stats('cold') };
    expect(after.hot.vacuums).toBe(before.hot.vacuums + 1);
    expect(after.hot.dead).toBe(0);
    expect(after.cold).toEqual(before.cold);
  });

  it('leaves a table one dead row short of the threshold alone', async () => {
    await churn('hot_b', DEAD - 1);
    await deadRowsReported('hot_b', DEAD - 1);
    const before = await stats('hot_b');
    expect(before.dead).toBe(DEAD - 1);
    await expect(vacuum(['hot_b']).pass()).resolves.toEqual([]);
    expect(await stats('hot_b')).toEqual(before);
    // one more dead row reaches it
    await churn('hot_b', 1);
    await deadRowsReported('hot_b', DEAD);
    await expect(vacuum(['hot_b']).pass()).resolves.toEqual(['hot_b']);
  });

  it('does not wait for a table someone else is vacuuming (SKIP_LOCKED), and keeps running', async () => {
    await churn('hot_a', DEAD);
    await deadRowsReported('hot_a', DEAD);
    // what a VACUUM (autovacuum's, another replica's) holds while it runs
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE hot_a IN SHARE UPDATE EXCLUSIVE MODE');
      const warn = jest.fn();
      const v = vacuum(['hot_a'], {}, { ...logger, warn });
      const started = Date.now();
      await expect(v.pass()).resolves.toEqual(['hot_a']);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(warn).not.toHaveBeenCalled();
      expect((await stats('hot_a')).dead).toBeGreaterThanOrEqual(DEAD);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('says once that a role which does not own the tables cannot vacuum them, and stops', async () => {
    await churn('hot_a', DEAD);
    await deadRowsReported('hot_a', DEAD);
    const role = `hv_${randomBytes(4).toString('hex')}`;
    await adminQuery(`CREATE ROLE ${role} LOGIN`);
    try {
      const u = new URL(db.url);
      u.username = role;
      const pool = createPostgresPool(u.toString(), 'hot-vacuum-test', logger);
      pools.push(pool);
      const warn = jest.fn();
      const v = new HotTableVacuum(
        pool,
        ['hot_a'],
        { ...logger, warn },
        {
          intervalMs: 50,
          deadRows: DEAD,
        },
      );
      stops.push(() => v.stop());
      v.start();
      await until(() => warn.mock.calls.length > 0, 10_000, 'the warning');
      await new Promise((r) => setTimeout(r, 300));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![1]).toMatch(/cannot be vacuumed by this role/);
      expect((await stats('hot_a')).dead).toBeGreaterThanOrEqual(DEAD);
    } finally {
      await Promise.all(pools.splice(0).map((p) => p.end()));
      await adminQuery(`DROP ROLE ${role}`);
    }
  });

  it('takes plain table names only (they go into the statement)', () => {
    expect(() => new HotTableVacuum(db.pool, ['outbox; DROP TABLE x'], logger)).toThrow(/plain/);
  });
});

describe('PgOutboxRelay', () => {
  it('vacuums its outbox and the hot tables it was given once started', async () => {
    await db.pool.query(`INSERT INTO outbox (event) SELECT '{}'::jsonb FROM generate_series(1, $1::int)`, [
      DEAD,
    ]);
    await db.pool.query('SELECT pg_stat_force_next_flush()');
    await db.pool.query('DELETE FROM outbox');
    await churn('hot_b', DEAD);
    await deadRowsReported('outbox', DEAD);
    await deadRowsReported('hot_b', DEAD);
    const before = { outbox: await stats('outbox'), hot: await stats('hot_b') };
    const bus = { publish: () => Promise.resolve() };
    const relay = new PgOutboxRelay(db.pool, bus, logger, {
      intervalMs: NEVER_MS,
      hotTables: ['hot_b'],
      vacuum: { intervalMs: 100, deadRows: DEAD },
    });
    stops.push(() => relay.stop());
    relay.start();
    await until(
      async () =>
        (await stats('outbox')).vacuums > before.outbox.vacuums &&
        (await stats('hot_b')).vacuums > before.hot.vacuums,
      10_000,
      'the outbox and hot_b vacuumed',
    );
  });
});
