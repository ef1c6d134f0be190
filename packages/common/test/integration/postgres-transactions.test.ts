import { createEvent, createLogger, idempotent, trustedProjectId } from '../../src';
import { connectPostgres, PgProcessedEvents, withTransaction, type Pool } from '../../src/postgres';
import { freshPostgresDatabase, TEST_POOL_MAX, type TestDatabase } from '../../../../test/support/postgres';
import { adminQuery, barrier, NO_MIGRATIONS } from './pg-support';

const logger = createLogger('pg-tx-test', 'silent');
let db: TestDatabase;
/** A second pool on the same database: another replica. */
let replica: Pool;

beforeAll(async () => {
  db = await freshPostgresDatabase('pgtx', NO_MIGRATIONS);
  replica = await connectPostgres(db.url, 'pgtx-replica', logger, { max: TEST_POOL_MAX });
  await db.pool.query('CREATE TABLE doctors (name text PRIMARY KEY, on_call boolean NOT NULL)');
  await db.pool.query('CREATE TABLE uniques (v text PRIMARY KEY)');
});

afterAll(async () => {
  await replica?.end();
  await db?.drop();
});

beforeEach(async () => {
  await db.pool.query('DELETE FROM doctors');
  await db.pool.query("INSERT INTO doctors VALUES ('alice', true), ('bob', true)");
});

/**
 * Write skew, the textbook serialization failure: each transaction checks that another doctor
 * is on call, then takes itself off. Under SERIALIZABLE one of two interleaved runs fails 40001.
 */
function goOffCall(pool: Pool, name: string, interleave: () => Promise<void>, attempts?: number) {
  const tries: number[] = [];
  const run = withTransaction(
    pool,
    async (tx) => {
      tries.push(tries.length + 1);
      const { rows } = await tx.query<{ n: string }>('SELECT count(*) AS n FROM doctors WHERE on_call');
      if (tries.length === 1) await interleave();
      if (Number(rows[0]!.n) < 2) return 'refused';
      await tx.query('UPDATE doctors SET on_call = false WHERE name = $1', [name]);
      return 'off call';
    },
    { isolation: 'SERIALIZABLE', attempts },
  );
  return { run, tries };
}

describe('withTransaction', () => {
  it('retries a serialization failure, and the retry sees the other commit', async () => {
    const both = barrier(2);
    // attempts to spare: a retry that starts while the first is still committing (a WAL flush
    // can take 200 ms on a loaded machine) is aborted again; withTransaction waits longer each time
    const alice = goOffCall(db.pool, 'alice', both, 10);
    const bob = goOffCall(replica, 'bob', both, 10);
    const results = await Promise.all([alice.run, bob.run]);
    // One ran once, the other was aborted with 40001 and ran again.
    const [once, retried] = [alice.tries.length, bob.tries.length].sort((a, b) => a - b);
    expect(once).toBe(1);
    expect(retried).toBeGreaterThanOrEqual(2);
    expect(results.sort()).toEqual(['off call', 'refused']);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM doctors WHERE on_call');
    expect(rows[0].n).toBe(1);
  });

  it('rethrows the serialization failure once its attempts are spent', async () => {
    const both = barrier(2);
    const alice = goOffCall(db.pool, 'alice', both, 1);
    const bob = goOffCall(replica, 'bob', both, 1);
    const settled = await Promise.allSettled([alice.run, bob.run]);
    const failed = settled.filter((s) => s.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect((failed[0] as PromiseRejectedResult).reason).toMatchObject({ code: '40001' });
  });

  it('rethrows other errors at once, with nothing committed', async () => {
    let tries = 0;
    await db.pool.query("INSERT INTO uniques VALUES ('taken')");
    await expect(
      withTransaction(db.pool, async (tx) => {
        tries++;
        await tx.query("INSERT INTO uniques VALUES ('fresh')");
        await tx.query("INSERT INTO uniques VALUES ('taken')");
      }),
    ).rejects.toMatchObject({ code: '23505' });
    await expect(
      withTransaction(db.pool, async (tx) => {
        tries++;
        await tx.query("INSERT INTO uniques VALUES ('fresh')");
        throw new Error('the use case refused');
      }),
    ).rejects.toThrow('the use case refused');
    expect(tries).toBe(2);
    const { rows } = await db.pool.query('SELECT v FROM uniques ORDER BY v');
    expect(rows).toEqual([{ v: 'taken' }]);
  });

  it('survives a connection lost mid-transaction: the transaction fails, the client is discarded', async () => {
    const pool = await connectPostgres(db.url, 'pgtx-lost', logger, { max: 1 });
    try {
      const lost = withTransaction(pool, async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await adminQuery('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // The connection dies while this client is checked out and between statements.
        await new Promise((r) => setTimeout(r, 300));
        await tx.query('SELECT 1');
      });
      // 57P01: the server's "terminating connection", which the error handler maps to 503.
      await expect(lost).rejects.toMatchObject({ code: '57P01' });
      expect(pool.totalCount).toBe(0);
      const again = await withTransaction(
        pool,
        async (tx) => (await tx.query<{ ok: number }>('SELECT 1 AS ok')).rows,
      );
      expect(again).toEqual([{ ok: 1 }]);
    } finally {
      await pool.end();
    }
  });
});

describe('PgProcessedEvents', () => {
  it('grants a claim exactly once among concurrent claimers on two replicas', async () => {
    const stores = [new PgProcessedEvents(db.pool), new PgProcessedEvents(replica)];
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stores[i % 2]!.claim('mailer', 'event-1', 60_000)),
    );
    expect(claims.filter((c) => c.status === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c.status === 'busy')).toHaveLength(19);
    // Another consumer's claim on the same event is its own.
    expect((await stores[1]!.claim('janitor', 'event-1', 60_000)).status).toBe('claimed');
  });

  it('lets a released claim be claimed again, once', async () => {
    const store = new PgProcessedEvents(db.pool);
    const first = await store.claim('mailer', 'event-2', 60_000);
    expect(first.status).toBe('claimed');
    await store.release('mailer', 'event-2', (first as { token: string }).token);
    expect((await store.claim('mailer', 'event-2', 60_000)).status).toBe('claimed');
    expect((await store.claim('mailer', 'event-2', 60_000)).status).toBe('busy');
  });

  it('gives a redelivered event one effect, and retries one whose handler failed', async () => {
    const store = new PgProcessedEvents(db.pool);
    const e = createEvent('user.deleted', trustedProjectId('0123456789abcdef01234567'), { userId: 'u' });
    let effects = 0;
    const handler = idempotent(store, 'c1', async () => void effects++);
    await handler(e);
    await handler(e);
    expect(effects).toBe(1);
    let fail = true;
    const flaky = idempotent(store, 'c2', async () => {
      if (fail) throw new Error('transient');
      effects++;
    });
    await expect(flaky(e)).rejects.toThrow('transient');
    fail = false;
    await flaky(e);
    expect(effects).toBe(2);
  });
});
