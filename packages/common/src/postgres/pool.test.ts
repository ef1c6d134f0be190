import { types } from 'pg';
import { performance } from 'node:perf_hooks';
import { createPostgresPool, IDLE_CONNECTION_MS, parseTimestamptz, withTransaction, type Pool } from './pool';
import type { Logger } from '../logger';

const reference = types.getTypeParser(1184, 'text');

describe('parseTimestamptz', () => {
  it.each([
    '2026-11-26 10:09:30.345+00',
    '2026-11-26 10:09:30+00',
    '2026-11-26 10:09:30.3+00',
    '2026-11-26 10:09:30.34+00',
    '0999-01-01 00:00:00+00',
    '2026-11-26 10:09:30.345123+00',
    '2026-11-26 11:09:30.345+01',
    '2026-11-26 05:39:30.345-04:30',
    '2026-11-26 10:09:30.345+00 BC',
    '10000-01-01 00:00:00+00',
    'infinity',
    '-infinity',
  ])('reads %s as node-postgres does', (text) => {
    const mine: unknown = parseTimestamptz(text);
    const theirs: unknown = reference(text);
    expect(mine instanceof Date).toBe(theirs instanceof Date); // infinity is a number there
    expect(Number(mine)).toBe(Number(theirs));
  });
});

describe('createPostgresPool', () => {
  it('keeps an idle connection ten minutes, not the 30 s that made the data service reconnect in bursts', async () => {
    const pool = createPostgresPool('postgres://nobody@127.0.0.1:1/none', 'test', {
      warn: () => undefined,
    } as unknown as Logger);
    expect(IDLE_CONNECTION_MS).toBe(600_000);
    expect(pool.options.idleTimeoutMillis).toBe(IDLE_CONNECTION_MS);
    await pool.end(); // nothing was connected
  });
});

/** A pool whose one client answers BEGIN, COMMIT and ROLLBACK and records them. */
function fakePool() {
  const statements: string[] = [];
  const client = {
    query: (text: string) => {
      statements.push(text);
      return Promise.resolve({ rows: [] });
    },
    on: () => client,
    removeListener: () => client,
    release: () => undefined,
  };
  return { pool: { connect: () => Promise.resolve(client) } as unknown as Pool, statements };
}

describe('withTransaction', () => {
  it.each(['40001', '40P01'])(
    'retries %s after a pause that grows with each loss, not at once (an immediate retry meets the winner still committing)',
    async (code) => {
      const { pool, statements } = fakePool();
      const starts: number[] = [];
      const result = await withTransaction(pool, () => {
        starts.push(performance.now());
        if (starts.length < 3) return Promise.reject(Object.assign(new Error('conflict'), { code }));
        return Promise.resolve('done');
      });
      expect(result).toBe('done');
      expect(statements).toEqual(['BEGIN', 'ROLLBACK', 'BEGIN', 'ROLLBACK', 'BEGIN', 'COMMIT']);
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(4.5); // 5-15 ms
      expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(9.5); // 10-30 ms
    },
  );

  it('does not wait before a first attempt, and rethrows other errors at once', async () => {
    const { pool, statements } = fakePool();
    let calls = 0;
    await expect(
      withTransaction(pool, () => {
        calls++;
        return Promise.reject(Object.assign(new Error('unique'), { code: '23505' }));
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
    expect(statements).toEqual(['BEGIN', 'ROLLBACK']);
  });
});
