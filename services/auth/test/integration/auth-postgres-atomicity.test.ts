import {
  createEvent,
  createLogger,
  openCodes,
  parseMailEnvelopeKey,
  type CodeEventType,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import { connectPostgres, type Pool } from '@baas/common/postgres';
import { freshPostgresDatabase, TEST_POOL_MAX, type TestDatabase } from '../../../../test/support/postgres';
import { loadAuthConfig } from '../../src/config';
import { wireAuth, type AuthWiring } from '../../src/wiring';
import { DuplicateEmailError, DuplicateProfileValueError } from '../../src/ports';
import { signup } from '../../src/domain/users/signup';
import { rotateSession } from '../../src/domain/sessions/rotate-session';
import { verifyEmail } from '../../src/domain/codes/verify-email';
import { resetPassword } from '../../src/domain/codes/reset-password';
import { issueResetCode } from '../../src/domain/codes/request-code';
import { deleteProjectUsers } from '../../src/domain/maintenance/delete-project-users';
import { hexIdGenerator, newHexId } from '../../src/adapters/hex-ids';
import { changeMemberRole } from '../../src/domain/console/change-member-role';
import type { ConsoleAccount } from '../../src/domain/console/account';
import { AUTH_TEST_ENV, MAIL_ENVELOPE_KEY, MIGRATIONS_DIR } from './harness';

/**
 * What only PostgreSQL promises, tested where it would break: two processes ("replicas"), each
 * with its own pool, racing the same rows; events in the outbox exactly when their change
 * committed. Always on PostgreSQL, whatever TEST_STORE says.
 */
const logger = createLogger('auth-pg-it', 'silent');
let db: TestDatabase;
let secondPool: Pool;
const published: EventEnvelope[] = [];
const publisher = { publish: async (e: EventEnvelope) => void published.push(e) };
/** Where the use cases' requests come from (their audit entries). */
const IT_ORIGIN = { clientIp: null, requestId: 'it' };
/** The codes an event carries sealed, opened as the mail service would. */
const codesOf = (e: EventEnvelope) =>
  openCodes([parseMailEnvelopeKey(MAIL_ENVELOPE_KEY)], e as EventEnvelope<CodeEventType>);

async function replica(pool: Pool, env: Record<string, string> = {}): Promise<AuthWiring> {
  const config = loadAuthConfig({
    ...AUTH_TEST_ENV,
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    MAIL_ENVELOPE_KEY,
    CODE_RESEND_INTERVAL_SECONDS: '0',
    ...env,
  });
  return wireAuth({ kind: 'postgres', pool, url: db.url }, config, logger, publisher, {
    relayIntervalMs: 60_000,
  });
}

let a: AuthWiring;
let b: AuthWiring;
const wirings: AuthWiring[] = [];

beforeAll(async () => {
  db = await freshPostgresDatabase('auth_pg_it', MIGRATIONS_DIR);
  secondPool = await connectPostgres(db.url, 'auth-pg-it-b', logger, { max: TEST_POOL_MAX });
  a = await replica(db.pool);
  b = await replica(secondPool);
  wirings.push(a, b);
});

afterAll(async () => {
  for (const w of wirings) for (const c of w.closers) await c.close();
  await secondPool?.end();
  await db?.drop();
});

async function project(w: AuthWiring = a): Promise<ProjectId> {
  const id = hexIdGenerator.projectId();
  const now = new Date();
  const key = () => ({
    hash: hexIdGenerator.projectId() + 'f'.repeat(40),
    prefix: 'pk_live_test',
    createdAt: now,
  });
  await w.projects.insert(
    {
      id,
      name: 'pg',
      settings: {},
      keys: { publishable: key(), secret: key() },
      createdAt: now,
      updatedAt: now,
    },
    [],
  );
  return id;
}

const email = () => `u${Math.random().toString(36).slice(2)}@x.io`;

async function newUser(w: AuthWiring, p: ProjectId, profile: Record<string, unknown> = {}) {
  return signup(w.deps, {
    projectId: p,
    requestId: 'it',
    publicSignups: true,
    requireEmailVerification: false,
    email: email(),
    password: 'password-1',
    profile,
  });
}

const count = async (sql: string, params: unknown[]) =>
  Number((await db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);

/** Half the calls on each replica, all started at once. */
const race = <T>(n: number, fn: (w: AuthWiring, i: number) => Promise<T>) =>
  Promise.allSettled(Array.from({ length: n }, (_, i) => fn(i % 2 === 0 ? a : b, i)));

const fulfilled = <T>(rs: PromiseSettledResult<T>[]) =>
  rs.filter((r): r is PromiseFulfilledResult<T> => r.status === 'fulfilled').map((r) => r.value);

describe('refresh-token rotation across two replicas', () => {
  it('20 concurrent rotations of one token within the grace window: one successor, stored once', async () => {
    const p = await project();
    const { tokens } = await newUser(a, p);
    const results = await race(20, (w) => rotateSession(w.deps, p, tokens!.refreshToken, IT_ORIGIN));
    const ok = fulfilled(results);
    expect(ok).toHaveLength(20);
    expect(new Set(ok.map((t) => t.refreshToken)).size).toBe(1);
    const rows = await db.pool.query<{ used_at: Date | null }>(
      `SELECT used_at FROM refresh_tokens WHERE project_id = $1`,
      [p],
    );
    expect(rows.rowCount).toBe(2);
    expect(rows.rows.filter((r) => r.used_at === null)).toHaveLength(1);
  });

  it('without a grace window, racing rotations never leave two live successors', async () => {
    const strictA = await replica(db.pool, { REFRESH_REUSE_GRACE_SECONDS: '0' });
    const strictB = await replica(secondPool, { REFRESH_REUSE_GRACE_SECONDS: '0' });
    wirings.push(strictA, strictB);
    const p = await project();
    const { tokens } = await newUser(strictA, p);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        rotateSession((i % 2 ? strictB : strictA).deps, p, tokens!.refreshToken, IT_ORIGIN),
      ),
    );
    expect(fulfilled(results).length).toBeLessThanOrEqual(1);
    expect(await count(`SELECT count(*) AS n FROM refresh_tokens WHERE project_id = $1`, [p])).toBe(2);
    // The losers saw a reuse: the family is revoked, so even the one successor is dead now.
    const fam = await db.pool.query(`SELECT revoked_reason FROM session_families WHERE project_id = $1`, [p]);
    expect(fam.rows).toEqual([{ revoked_reason: 'refresh_token_reuse' }]);
  });
});

describe('one-time codes across two replicas', () => {
  it('30 concurrent attempts take exactly the limit, and a use is claimed once', async () => {
    const p = await project();
    const codeId = 'c'.repeat(64);
    const expires = new Date(Date.now() + 60_000);
    const taken = fulfilled(await race(30, (w) => w.claims.reserveAttempt(p, codeId, 5, expires)));
    expect(taken.filter(Boolean)).toHaveLength(5);
    expect(await count(`SELECT attempts AS n FROM code_claims WHERE project_id = $1`, [p])).toBe(5);
    expect(await a.claims.exhausted(p, codeId, 5)).toBe(true);
    const other = await project();
    expect(await b.claims.exhausted(other, codeId, 5)).toBe(false);
    const uses = fulfilled(await race(10, (w) => w.claims.claimUse(p, codeId, expires)));
    expect(uses.filter(Boolean)).toHaveLength(1);
  });

  it('parallel wrong OTPs through the use case never exceed CODE_MAX_ATTEMPTS; the right one is then refused', async () => {
    const p = await project();
    const { user } = await newUser(a, p);
    await a.relay.flush();
    const sent = published.find((e) => e.type === 'auth.verification_requested' && e.projectId === p)!;
    const { otp } = codesOf(sent);
    const wrong = String((Number(otp) + 1) % 1e8).padStart(8, '0');
    const results = await race(12, (w) => verifyEmail(w.deps, p, { email: user.email, otp: wrong }, 'it'));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(await count(`SELECT sum(attempts) AS n FROM code_claims WHERE project_id = $1`, [p])).toBe(5);
    await expect(verifyEmail(b.deps, p, { email: user.email, otp }, 'it')).rejects.toMatchObject({
      code: 'INVALID_CODE',
    });
  });

  it('a reset code redeemed on both replicas at once succeeds exactly once', async () => {
    const p = await project();
    const { user } = await newUser(a, p);
    expect(await issueResetCode(a.deps, p, user, 'it')).toBe(true);
    await a.relay.flush();
    const sent = published.filter((e) => e.type === 'auth.password_reset_requested' && e.projectId === p);
    const { token } = codesOf(sent[0]!);
    const results = await race(4, (w, i) =>
      resetPassword(w.deps, p, { token }, `new-password-${i}`, IT_ORIGIN),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await count(`SELECT count(*) AS n FROM user_codes WHERE project_id = $1`, [p])).toBe(1); // the verify code
  });

  it('racing reset requests within the resend interval store one code and record one event', async () => {
    const slowA = await replica(db.pool, { CODE_RESEND_INTERVAL_SECONDS: '30' });
    const slowB = await replica(secondPool, { CODE_RESEND_INTERVAL_SECONDS: '30' });
    wirings.push(slowA, slowB);
    const p = await project();
    const { user } = await newUser(slowA, p);
    const issued = await Promise.all(
      Array.from({ length: 10 }, (_, i) => issueResetCode((i % 2 ? slowB : slowA).deps, p, user, 'it')),
    );
    expect(issued.filter(Boolean)).toHaveLength(1);
    await slowA.relay.flush();
    expect(
      published.filter((e) => e.type === 'auth.password_reset_requested' && e.projectId === p),
    ).toHaveLength(1);
  });
});

describe('compare-and-set and unique values across two replicas', () => {
  it('concurrent password replacements from the same expected hash: exactly one wins', async () => {
    const p = await project();
    const { user } = await newUser(a, p);
    const wins = fulfilled(
      await race(10, (w, i) => w.users.replacePasswordHash(p, user.id, user.passwordHash, `hash-${i}`, [])),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('a unique profile value is taken by one of many racing signups, even past the query check', async () => {
    const p = await project();
    await a.schemas.put(p, [{ key: 'username', type: 'String', unique: true }]);
    // Straight to the repository: the query check in the use case would hide the race.
    const now = new Date();
    const results = await race(8, (w) =>
      w.users.insert(
        p,
        {
          id: w.deps.ids.userId(),
          email: email(),
          passwordHash: 'h',
          profile: { username: 'taken' },
          codes: {},
          createdAt: now,
        },
        [],
        ['username'],
      ),
    );
    expect(fulfilled(results)).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateProfileValueError);
    // Through the use case the answer is the contract's 400 DUPLICATE_VALUE.
    await expect(newUser(b, p, { username: 'taken' })).rejects.toMatchObject({ code: 'DUPLICATE_VALUE' });
  });

  it('the side table follows profile changes: a value given up is free, a value taken is not', async () => {
    const p = await project();
    await a.schemas.put(p, [{ key: 'username', type: 'String', unique: true }]);
    const one = (await newUser(a, p, { username: 'x' })).user;
    const two = (await newUser(b, p, { username: 'y' })).user;
    await expect(
      b.users.updateProfile(p, two.id, { username: 'x' }, [], [], ['username']),
    ).rejects.toBeInstanceOf(DuplicateProfileValueError);
    expect((await a.users.findById(p, two.id))?.profile).toEqual({ username: 'y' });
    await a.users.updateProfile(p, one.id, { username: 'z' }, [], [], ['username']);
    expect(
      (await b.users.updateProfile(p, two.id, { username: 'x' }, [], [], ['username']))?.profile,
    ).toEqual({
      username: 'x',
    });
    await b.users.updateProfile(p, two.id, {}, ['username'], [], ['username']);
    expect(
      (await a.users.updateProfile(p, one.id, { username: 'x' }, [], [], ['username']))?.profile,
    ).toEqual({
      username: 'x',
    });
    // Another project's values are its own.
    const other = await project();
    await a.schemas.put(other, [{ key: 'username', type: 'String', unique: true }]);
    expect((await newUser(b, other, { username: 'x' })).user.profile).toEqual({ username: 'x' });
  });
});

describe('the outbox holds an event if and only if its change committed', () => {
  let c: AuthWiring;
  beforeAll(async () => {
    await a.relay.flush();
    await b.relay.flush();
    c = await replica(db.pool);
    wirings.push(c);
    await c.relay.stop(); // rows stay in the outbox for the test to read
    // Test-only: a constraint checked at COMMIT, i.e. after the use case recorded its events.
    await db.pool.query(`
      CREATE FUNCTION it_refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.password_hash = 'refused-at-commit' THEN RAISE EXCEPTION 'refused at commit'; END IF;
        RETURN NULL;
      END $$;
      CREATE CONSTRAINT TRIGGER it_refuse_at_commit AFTER UPDATE ON users
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION it_refuse_at_commit();`);
  });

  const outboxHas = async (e: EventEnvelope) =>
    count(`SELECT count(*) AS n FROM outbox WHERE event->>'id' = $1`, [e.id]);

  it('committed changes leave their events; refused and failed ones leave neither change nor event', async () => {
    const p = await project(c);
    const id = c.deps.ids.userId();
    const created = createEvent('user.created', p, { userId: id, email: 'o@x.io' });
    const now = new Date();
    const newUser = { id, email: 'o@x.io', passwordHash: 'h1', profile: {}, codes: {}, createdAt: now };
    await c.users.insert(p, newUser, [created]);
    expect(await outboxHas(created)).toBe(1);

    // A refused insert (email taken) records nothing.
    const dup = createEvent('user.created', p, { userId: 'other', email: 'O@x.io' });
    await expect(
      c.users.insert(p, { ...newUser, id: c.deps.ids.userId(), email: 'O@x.io' }, [dup]),
    ).rejects.toBeInstanceOf(DuplicateEmailError);
    expect(await outboxHas(dup)).toBe(0);

    // A conditional write that does not apply records nothing.
    const stale = createEvent('user.updated', p, { userId: id, changed: ['password'] });
    expect(await c.users.replacePasswordHash(p, id, 'not-the-hash', 'h2', [stale])).toBe(false);
    expect(await outboxHas(stale)).toBe(0);

    // An event that cannot be stored fails the whole transaction: the change is not there either.
    const broken = createEvent('user.updated', p, { userId: id, changed: ['pass\u0000word'] });
    await expect(c.users.replacePasswordHash(p, id, 'h1', 'h2', [broken])).rejects.toMatchObject({
      status: 400,
    });
    expect((await c.users.findById(p, id))?.passwordHash).toBe('h1');
    expect(await count(`SELECT count(*) AS n FROM outbox WHERE event->>'type' = 'user.updated'`, [])).toBe(0);

    // A transaction that fails at COMMIT, after its events were appended, leaves no event.
    const late = createEvent('user.updated', p, { userId: id, changed: ['password'] });
    await expect(c.users.replacePasswordHash(p, id, 'h1', 'refused-at-commit', [late])).rejects.toThrow(
      'refused at commit',
    );
    expect((await c.users.findById(p, id))?.passwordHash).toBe('h1');
    expect(await outboxHas(late)).toBe(0);

    // And the same write with a storable event commits both.
    const changed = createEvent('user.updated', p, { userId: id, changed: ['password'] });
    expect(await c.users.replacePasswordHash(p, id, 'h1', 'h2', [changed])).toBe(true);
    expect(await outboxHas(changed)).toBe(1);

    // A deletion and its event commit together; the relay of another replica publishes them.
    const deleted = createEvent('user.deleted', p, { userId: id });
    expect(await c.users.delete(p, id, [deleted])).toBe(true);
    expect(await outboxHas(deleted)).toBe(1);
    await b.relay.flush();
    expect(published.map((e) => e.id)).toEqual(expect.arrayContaining([created.id, changed.id, deleted.id]));
    expect(published.map((e) => e.id)).not.toContain(dup.id);
    expect(await count(`SELECT count(*) AS n FROM outbox`, [])).toBe(0);
  });
});

describe('project deletion', () => {
  /** Rows per table holding a project_id, for one project. */
  async function rowsOf(p: ProjectId): Promise<Record<string, number>> {
    const tables = await db.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'project_id'
          -- The audit log outlives the project on purpose (docs/security.md).
          AND table_name <> 'audit_log'
        ORDER BY table_name`,
    );
    const out: Record<string, number> = {};
    for (const { table_name } of tables.rows)
      out[table_name] = await count(`SELECT count(*) AS n FROM ${table_name} WHERE project_id = $1`, [p]);
    return out;
  }

  async function populate(p: ProjectId) {
    await a.schemas.put(p, [{ key: 'username', type: 'String', unique: true }]);
    const { user } = await newUser(a, p, { username: `n-${p}` });
    await newUser(b, p);
    await issueResetCode(a.deps, p, user, 'it');
    await a.claims.reserveAttempt(p, `code-${p}`, 5, new Date(Date.now() + 60_000));
    // The console's: a member and an invitation.
    const account = await consoleAccount();
    expect(
      await a.console.members.change(p, () => ({ accountId: account.id, role: 'owner', events: [] })),
    ).toBe(true);
    expect(await b.console.members.insertInvitation(invitation(p), [])).toBe(true);
  }

  it('removes every row of the project in every table; another project keeps all of its rows', async () => {
    const gone = await project();
    const kept = await project();
    await populate(gone);
    await populate(kept);
    const before = await rowsOf(kept);
    expect(Object.values(await rowsOf(gone)).every((n) => n > 0)).toBe(true);
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining([
        'users',
        'user_codes',
        'user_unique_values',
        'session_families',
        'refresh_tokens',
        'console_memberships',
        'console_invitations',
      ]),
    );

    expect(await a.projects.markDeleted(gone, [createEvent('project.deleted', gone, {})])).toBe(true);
    await deleteProjectUsers(b, gone);
    await deleteProjectUsers(a, gone); // idempotent

    expect(Object.values(await rowsOf(gone)).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(kept)).toEqual(before);
    expect(await a.projects.findById(gone)).toBeNull();
    expect(await a.projects.findById(kept)).not.toBeNull();
    // The tombstone stays, without keys.
    expect(
      await count(`SELECT count(*) AS n FROM projects WHERE id = $1 AND deleted_at IS NOT NULL`, [gone]),
    ).toBe(1);
  });

  it('a key resolves to its project until it is rotated or the project is deleted', async () => {
    const p = await project();
    const found = await a.projects.findById(p);
    const hash = found!.keys.secret.hash;
    expect(await b.projects.findByKeyHash(hash)).toMatchObject({ project: { id: p }, keyType: 'secret' });
    const fresh = { hash: 'e'.repeat(64), prefix: 'sk_live_new', createdAt: new Date() };
    expect(await a.projects.replaceKey(p, 'secret', fresh, [])).toBe(true);
    expect(await b.projects.findByKeyHash(hash)).toBeNull();
    expect(await b.projects.findByKeyHash(fresh.hash)).toMatchObject({
      project: { id: p },
      keyType: 'secret',
    });
    expect(await a.projects.markDeleted(p, [])).toBe(true);
    expect(await b.projects.findByKeyHash(fresh.hash)).toBeNull();
    expect(await a.projects.replaceKey(p, 'secret', fresh, [])).toBe(false);
    expect(await a.projects.markDeleted(p, [])).toBe(false);
  });
});

async function consoleAccount(): Promise<ConsoleAccount> {
  const now = new Date();
  const account = {
    id: newHexId(),
    email: email(),
    passwordHash: 'h',
    platformAdmin: false,
    createdAt: now,
    updatedAt: now,
  };
  await a.console.accounts.insert(account);
  return account;
}

function invitation(p: ProjectId) {
  const now = new Date();
  return {
    id: newHexId(),
    projectId: p,
    email: email(),
    role: 'viewer' as const,
    tokenHash: newHexId().padEnd(64, '0'),
    invitedBy: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + 86_400_000),
  };
}

describe('console members and codes across replicas', () => {
  const source = { actor: { type: 'platform-admin' as const }, clientIp: null, requestId: 'it' };

  it('two owners demoting each other on two replicas: exactly one succeeds, one owner remains', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await project();
      const [x, y] = [await consoleAccount(), await consoleAccount()];
      for (const id of [x.id, y.id])
        await a.console.members.change(p, () => ({ accountId: id, role: 'owner', events: [] }));
      const outcomes = await Promise.allSettled([
        changeMemberRole(a.console, p, x.id, 'viewer', source),
        changeMemberRole(b.console, p, y.id, 'viewer', source),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect((refused.reason as { code?: string }).code).toBe('LAST_OWNER');
      const roles = (await b.console.members.ofProject(p)).map((m) => m.role).sort();
      expect(roles).toEqual(['owner', 'viewer']);
    }
  });

  it('an invitation is used once, whichever replicas race for it; a cancelled one not at all', async () => {
    const p = await project();
    const inv = invitation(p);
    await a.console.members.insertInvitation(inv, []);
    const now = new Date();
    const claims = await Promise.all([
      a.console.members.claimInvitation(inv.id, now),
      b.console.members.claimInvitation(inv.id, now),
      a.console.members.claimInvitation(inv.id, now),
      b.console.members.claimInvitation(inv.id, now),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const other = invitation(p);
    await a.console.members.insertInvitation(other, []);
    const [cancelled, claimed] = await Promise.all([
      b.console.members.cancelInvitation(p, other.id, now),
      a.console.members.claimInvitation(other.id, now),
    ]);
    expect([cancelled, claimed].filter(Boolean)).toHaveLength(1);
  });

  it('a reset code sets one password, whichever replicas race to use it, and carries its event in the same commit', async () => {
    const account = await consoleAccount();
    const now = new Date();
    const code = {
      accountId: account.id,
      tokenHash: 'c'.repeat(64),
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    };
    const event = createEvent('project.created', await project(), { name: 'stand-in for the reset mail' });
    expect(await a.console.accounts.putResetCode(code, [event], now)).toBe(true);
    // committed with the code: still in the outbox, or already published by a's relay (which
    // publishes right after each commit and then deletes the row)
    const inOutbox = await count(`SELECT count(*) AS n FROM outbox WHERE event->>'id' = $1`, [event.id]);
    expect(inOutbox === 1 || published.some((e) => e.id === event.id)).toBe(true);
    const used = await Promise.all(
      ['h-a', 'h-b', 'h-c', 'h-d'].map((h, i) =>
        (i % 2 ? b : a).console.accounts.consumeResetCode(account.id, code.tokenHash, h, new Date()),
      ),
    );
    expect(used.filter(Boolean)).toHaveLength(1);
    const winner = ['h-a', 'h-b', 'h-c', 'h-d'][used.indexOf(true)];
    expect((await b.console.accounts.findById(account.id))?.passwordHash).toBe(winner);
  });
});
