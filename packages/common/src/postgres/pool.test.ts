import { types } from 'pg';
import { createPostgresPool, IDLE_CONNECTION_MS, parseTimestamptz } from './pool';
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
