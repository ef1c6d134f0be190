import { types } from 'pg';
import { performance } from 'node:perf_hooks';
import { createPostgresPool, IDLE_CONNECTION_MS, parseTimestamptz, withTransaction, type Pool } from './pool';
import type { Logger } from '../logger';
import { isoText } from '../iso-text';

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
    if (theirs instanceof Date) expect(isoText(mine as Date)).toBe(theirs.toISOString());
  });

  it('keeps the ISO text of a UTC timestamp, as toISOString writes it', () => {
    // every length PostgreSQL writes in UTC: no fraction, one, two or three digits
    const cases: Array<[string, string]> = [
      ['2026-11-26 10:09:30+00', '2026-11-26T10:09:30.000Z'],
      ['2026-11-26 10:09:30.3+00', '2026-11-26T10:09:30.300Z'],
      ['2026-11-26 10:09:30.34+00', '2026-11-26T10:09:30.340Z'],
      ['2026-11-26 10:09:30.345+00', '2026-11-26T10:09:30.345Z'],
    ];
    for (const [text, iso] of cases) {
      const d = parseTimestamptz(text) as Date;
      expect(isoText(d)).toBe(iso);
      expect(d.toISOString()).toBe(iso);
    }
    // random instants, written by PostgreSQL's rule (trailing zeros of the fraction dropped)
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(Math.random() * 4e12) - 1e12; // 1938-2065
      const plain = new Date(ms).toISOString();
      const fraction = plain.slice(19, 23).replace(/\.?0+$/, '');
      const text = `${plain.slice(0, 10)} ${plain.slice(11, 19)}${fraction}+00`;
      const d = parseTimestamptz(text) as Date;
      expect(d.getTime()).toBe(ms);
      expect(isoText(d)).toBe(plain);
    }
  });

  it('reads a plain Date, equal to any Date of the same instant', () => {
    const d = parseTimestamptz('2026-11-26 10:09:30.345+00');
    expect(Object.getPrototypeOf(d)).toBe(Date.prototype);
    expect(Object.keys(d as object)).toEqual([]);
    expect(d).toEqual(new Date('2026-11-26T10:09:30.345Z'));
    expect(structuredClone(d)).toEqual(new Date('2026-11-26T10:09:30.345Z'));
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
      // 5-15 ms, then 10-30 ms; less 1 ms, as a timer counts from the event loop's cached time,
      // which can be up to a millisecond behind performance.now() when it is set (seen in CI:
      // 9.4988 ms for a pause of at least 10)
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(4);
      expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(9);
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
