import { createLogger } from '@baas/common';
import { connectPostgres, type Pool } from '@baas/common/postgres';
import { freshPostgresDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { loadAuthConfig } from '../../src/config';
import { wireAuth, type AuthWiring } from '../../src/wiring';
import { hexIdGenerator } from '../../src/adapters/hex-ids';
import { AUTH_TEST_ENV, MAIL_ENVELOPE_KEY, MIGRATIONS_DIR } from './harness';

/**
 * The auth service's statements on PostgreSQL are prepared: parsed and planned once per
 * connection, not on every request (a login's lookup costs the server ~170 µs of CPU less).
 * One connection, so the session whose prepared statements are listed is the one that ran them.
 * Always on PostgreSQL, whatever TEST_STORE says.
 */
const logger = createLogger('auth-pg-prepared-it', 'silent');
let db: TestDatabase;
let pool: Pool;
let w: AuthWiring;

beforeAll(async () => {
  db = await freshPostgresDatabase('auth_pg_prepared', MIGRATIONS_DIR);
  pool = await connectPostgres(db.url, 'auth-pg-prepared-it', logger, { max: 1 });
  const config = loadAuthConfig({
    ...AUTH_TEST_ENV,
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    MAIL_ENVELOPE_KEY,
  });
  w = await wireAuth(
    { kind: 'postgres', pool, url: db.url },
    config,
    logger,
    { publish: async () => {} },
    {
      relayIntervalMs: 60_000,
    },
  );
});

afterAll(async () => {
  for (const c of w?.closers ?? []) await c.close();
  await pool?.end();
  await db?.drop();
});

/** The session's prepared statements: all of them, and the names of the user lookup's. */
async function preparedStatements(): Promise<{ total: number; lookups: string[] }> {
  const { rows } = await pool.query<{ name: string; statement: string }>(
    'SELECT name, statement FROM pg_prepared_statements',
  );
  const lookups = rows.filter((r) => r.statement.includes('u.email_lower = $2')).map((r) => r.name);
  return { total: rows.length, lookups };
}

test("a login's user lookup is prepared once per connection and reused", async () => {
  const projectId = hexIdGenerator.projectId();
  expect((await preparedStatements()).lookups).toEqual([]);

  expect(await w.users.findByEmail(projectId, 'ada@example.com')).toBeNull();
  const first = await preparedStatements();
  expect(first.lookups).toHaveLength(1);
  expect(first.lookups[0]).toMatch(/^baas_[0-9a-f]{24}$/);

  // the same text again, other values: the same statement, nothing new prepared
  expect(await w.users.findByEmail(projectId, 'grace@example.com')).toBeNull();
  expect(await preparedStatements()).toEqual(first);
});

test('a statement a migration made stale (a column added under SELECT *) is answered unprepared', async () => {
  const projectId = hexIdGenerator.projectId();
  expect(await w.sessions.findFamily(projectId, 'f1')).toBeNull(); // prepared: SELECT * FROM session_families
  await pool.query('ALTER TABLE session_families ADD COLUMN added_by_a_later_version text');
  try {
    // prepared, PostgreSQL would refuse it ("cached plan must not change result type")
    expect(await w.sessions.findFamily(projectId, 'f1')).toBeNull();
    expect(await w.sessions.findFamily(projectId, 'f2')).toBeNull();
  } finally {
    await pool.query('ALTER TABLE session_families DROP COLUMN added_by_a_later_version');
  }
});

test("an audit entry (a failed sign-in's) is written by a prepared statement", async () => {
  const projectId = hexIdGenerator.projectId();
  const entry = (requestId: string) => ({
    id: `${projectId}-${requestId}`,
    projectId,
    at: new Date(),
    action: 'user.login_failed' as const,
    actor: { type: 'anonymous' as const },
    target: { type: 'user' as const, id: 'unknown' },
    requestId,
    clientIp: '198.51.100.7',
    details: { email: 'nobody@example.com', reason: 'unknown_email' },
  });
  const inserts = async () =>
    (
      await pool.query<{ name: string }>(
        `SELECT name FROM pg_prepared_statements WHERE statement LIKE '%INSERT INTO audit_log%'`,
      )
    ).rows.map((r) => r.name);
  await w.audit.append(entry('first'));
  const first = await inserts();
  expect(first).toHaveLength(1);
  await w.audit.append(entry('second'));
  expect(await inserts()).toEqual(first);
  expect((await w.audit.list({ projectId, limit: 10 })).map((e) => e.requestId)).toEqual(['second', 'first']);
});
