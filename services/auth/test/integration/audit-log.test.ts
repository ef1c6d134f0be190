import type { EventEnvelope, ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';
import { recordAuditEntry } from '../../src/domain/audit/record-audit-entry';
import { userSecurityEntry } from '../../src/domain/audit/user-security-events';

/**
 * The audit log (issue 12, "Also"): each admin action auth owns hands one `audit.recorded` event
 * to the outbox with its change; the consumer (fed here with what the relay published, as
 * JetStream would deliver it, at least once) keeps it; the admin API reads it, newest first.
 * Runs on TEST_STORE (postgres by default, or mongodb).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Delivers every published audit event to the consumer's handler, each one twice. */
async function deliverAudits(): Promise<void> {
  await h.relay.flush();
  for (const e of h.published.filter((x) => x.type === 'audit.recorded')) {
    await recordAuditEntry(h.wiring.audit, e);
    await recordAuditEntry(h.wiring.audit, e);
  }
}

const admin = { admin: true, clientIp: '203.0.113.9' };

interface Entry {
  id: string;
  at: string;
  action: string;
  projectId: string | null;
  actor: { type: string };
  target: { type: string; id: string };
  requestId: string | null;
  clientIp: string | null;
  details: Record<string, unknown> | null;
}

async function auditOf(p: string, query = ''): Promise<{ status: number; body: any }> {
  return h.call('GET', `/api/admin/projects/${p}/audit${query}`, { admin: true });
}

async function newProject(): Promise<{ id: ProjectId; body: any }> {
  const r = await h.call('POST', '/api/admin/projects', { ...admin, body: { name: 'audited' } });
  expect(r.status).toBe(201);
  return { id: r.body.id as ProjectId, body: r.body };
}

describe('audit log of admin actions', () => {
  it('records each project, key, user and signing-key action exactly once, with actor, target, time, request id and client IP', async () => {
    const started = Date.now();
    const { id: p } = await newProject();
    expect(
      (await h.call('PATCH', `/api/admin/projects/${p}`, { ...admin, body: { name: 'renamed' } })).status,
    ).toBe(200);
    const rotated = await h.call('POST', `/api/admin/projects/${p}/keys/rotate`, {
      ...admin,
      body: { type: 'secret' },
    });
    expect(rotated.status).toBe(200);
    const s = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'audited@x.io', password: 'password-123' },
    });
    expect(s.status).toBe(201);
    const userId = String(s.body.user?._id ?? s.body.user?.id ?? s.body.data?.user?._id ?? '');
    expect(userId).not.toBe('');
    expect((await h.call('DELETE', `/api/admin/projects/${p}/users/${userId}`, admin)).status).toBe(200);
    const sk = await h.call('POST', '/api/admin/signing-keys/rotate', admin);
    expect(sk.status).toBe(200);
    // Refused or read-only requests record nothing.
    expect((await h.call('PATCH', `/api/admin/projects/${p}`, { ...admin, body: { bogus: 1 } })).status).toBe(
      400,
    );
    expect((await h.call('GET', `/api/admin/projects/${p}`, admin)).status).toBe(200);
    expect((await h.call('DELETE', `/api/admin/projects/${p}`, admin)).status).toBe(200);
    await deliverAudits();

    const log = await auditOf(p);
    expect(log.status).toBe(200);
    expect(log.body.success).toBe(true);
    const items = log.body.data.items as Entry[];
    expect(items.map((e) => [e.action, e.target.type])).toEqual([
      ['project.deleted', 'project'],
      ['user.deleted', 'user'],
      ['project.key_rotated', 'api-key'],
      ['project.updated', 'project'],
      ['project.created', 'project'],
    ]);
    for (const e of items) {
      expect(e).toMatchObject({ projectId: p, actor: { type: 'platform-admin' }, clientIp: '203.0.113.9' });
      expect(e.requestId).toEqual(expect.stringMatching(/^it-/));
      expect(Date.parse(e.at)).toBeGreaterThanOrEqual(started - 1000);
    }
    expect(items[1]!.target.id).toBe(userId);
    expect(items[2]!.details).toEqual({ keyType: 'secret', prefix: expect.any(String) });
    expect(JSON.stringify(items)).not.toContain(rotated.body.secretKey);
    expect(items[3]!.details).toEqual({ changed: ['name'] });

    const platform = await h.call('GET', '/api/admin/audit?action=signing_key.rotated', { admin: true });
    expect(platform.status).toBe(200);
    const keyEntries = (platform.body.data.items as Entry[]).filter((e) => e.target.id === sk.body.data.kid);
    expect(keyEntries).toHaveLength(1);
    expect(keyEntries[0]).toMatchObject({
      projectId: null,
      clientIp: '203.0.113.9',
      action: 'signing_key.rotated',
    });
  });

  it('pages newest first with an opaque cursor, clamps limit to 100 and refuses bad parameters with 400', async () => {
    const { id: p } = await newProject();
    for (let i = 0; i < 4; i++)
      await h.call('PATCH', `/api/admin/projects/${p}`, { ...admin, body: { name: `n${i}` } });
    await deliverAudits();
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const r = await auditOf(p, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(r.status).toBe(200);
      expect(r.body.data.limit).toBe(2);
      seen.push(...(r.body.data.items as Entry[]).map((e) => e.id));
      if (r.body.data.nextCursor === null) break;
      cursor = r.body.data.nextCursor;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const all = (await auditOf(p, '?limit=100')).body.data.items as Entry[];
    expect(all.map((e) => e.id)).toEqual(seen);
    const times = all.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await auditOf(p, '?limit=101')).body.data.limit).toBe(100);
    expect((await auditOf(p, '?action=project.updated')).body.data.items).toHaveLength(4);
    for (const q of [
      '?limit=0',
      '?limit=-1',
      '?limit=abc',
      '?cursor=not-a-cursor',
      '?action=nope',
      '?sort=at',
      '?projectId=x',
    ]) {
      const r = await auditOf(p, q);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        success: false,
        code: 'VALIDATION_FAILED',
        requestId: expect.any(String),
      });
    }
  });

  it('keeps a deleted project’s entries readable; an id that never existed is 404', async () => {
    const { id: p } = await newProject();
    await h.call('DELETE', `/api/admin/projects/${p}`, admin);
    await deliverAudits();
    const log = await auditOf(p);
    expect((log.body.data.items as Entry[]).map((e) => e.action)).toEqual([
      'project.deleted',
      'project.created',
    ]);
    const never = await auditOf('0123456789abcdef01234567');
    expect(never.status).toBe(404);
    expect(never.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('a tenant (project key) can neither read nor write the log, and no method writes or deletes entries', async () => {
    const { id: p } = await newProject();
    await deliverAudits();
    const before = (await auditOf(p)).body.data.items;
    expect(before).toHaveLength(1);
    for (const path of [`/api/admin/projects/${p}/audit`, `/api/admin/audit`]) {
      const asTenant = await h.call('GET', path, { projectId: p });
      expect(asTenant.status).toBe(401);
      expect(asTenant.body.code).toBe('ADMIN_TOKEN_REQUIRED');
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        expect((await h.call(method, path, { projectId: p, body: {} })).status).toBeGreaterThanOrEqual(400);
        const asAdmin = await h.call(method, path, { admin: true, body: { action: 'project.created' } });
        expect([404, 405]).toContain(asAdmin.status);
      }
    }
    expect((await auditOf(p)).body.data.items).toEqual(before);
  });

  it('records a redelivered event once', async () => {
    const { id: p } = await newProject();
    await h.relay.flush();
    const e = h.published.find((x) => x.type === 'audit.recorded' && x.projectId === p) as EventEnvelope;
    for (let i = 0; i < 3; i++) await recordAuditEntry(h.wiring.audit, e);
    expect((await auditOf(p)).body.data.items).toHaveLength(1);
  });
});

describe("audit log of end users' security events (security notes #22, #87)", () => {
  const ip = '198.51.100.7';
  const asUser = (p: ProjectId, body: unknown, extra: { headers?: Record<string, string> } = {}) => ({
    projectId: p,
    clientIp: ip,
    body,
    headers: { 'x-refresh-token-mode': 'header', ...extra.headers },
  });

  /** The project's entries of one action, newest first. */
  async function entries(p: ProjectId, action: string): Promise<Entry[]> {
    await deliverAudits();
    const r = await auditOf(p, `?action=${action}`);
    expect(r.status).toBe(200);
    return r.body.data.items as Entry[];
  }

  it('records sign-ins and failed sign-ins with who, the email tried, why, the address and the request id', async () => {
    const p = await h.project();
    const email = `signin${Math.random().toString(36).slice(2)}@x.io`;
    const s = await h.call('POST', '/api/userAuth/signup', asUser(p, { email, password: 'password-123' }));
    expect(s.status).toBe(201);
    const userId = s.body.user._id as string;
    const ok = await h.call('POST', '/api/userAuth/login', {
      ...asUser(p, { email, password: 'password-123' }),
      headers: { 'x-request-id': 'signin-ok-1' },
    });
    expect(ok.status).toBe(200);
    const wrong = await h.call(
      'POST',
      '/api/userAuth/login',
      asUser(p, { email, password: 'not-the-password' }),
    );
    expect(wrong.status).toBe(401);
    const nobody = await h.call(
      'POST',
      '/api/userAuth/login',
      asUser(p, { email: 'Nobody@X.io', password: 'not-the-password' }),
    );
    expect(nobody.status).toBe(401);

    const [signedIn, ...moreSignIns] = await entries(p, 'user.logged_in');
    expect(moreSignIns).toEqual([]); // signing up issues tokens but is not a sign-in
    expect(signedIn).toMatchObject({
      projectId: p,
      action: 'user.logged_in',
      actor: { type: 'end-user', id: userId },
      target: { type: 'user', id: userId },
      requestId: 'signin-ok-1',
      clientIp: ip,
      details: null,
    });
    const failed = await entries(p, 'user.login_failed');
    expect(failed).toHaveLength(2);
    expect(failed.map((e) => [e.actor, e.target, e.details, e.clientIp])).toEqual([
      [
        { type: 'anonymous' },
        { type: 'user', id: 'unknown' },
        { email: 'nobody@x.io', reason: 'unknown_email' },
        ip,
      ],
      [{ type: 'anonymous' }, { type: 'user', id: userId }, { email, reason: 'wrong_password' }, ip],
    ]);
    // nothing secret is kept: neither password appears anywhere in the log
    const all = JSON.stringify((await auditOf(p)).body);
    expect(all).not.toContain('not-the-password');
    expect(all).not.toContain('password-123');
  });

  it('does not log throttled attempts one by one: past the per-account limit, no entry is written', async () => {
    const p = await h.project();
    const email = `flood${Math.random().toString(36).slice(2)}@x.io`;
    const limit = h.config.LOGIN_ACCOUNT_MAX_ATTEMPTS;
    const statuses: number[] = [];
    for (let i = 0; i < limit + 3; i++)
      statuses.push(
        (await h.call('POST', '/api/userAuth/login', asUser(p, { email, password: 'not-the-password' })))
          .status,
      );
    expect(statuses.filter((s) => s === 401)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    expect(await entries(p, 'user.login_failed')).toHaveLength(limit);
  });

  it('records a sign-in refused for an unverified email as failed, by the user who knew the password', async () => {
    const p = await h.project({ requireEmailVerification: true });
    const email = `unverified${Math.random().toString(36).slice(2)}@x.io`;
    const s = await h.call('POST', '/api/userAuth/signup', asUser(p, { email, password: 'password-123' }));
    expect(s.status).toBe(201);
    const r = await h.call('POST', '/api/userAuth/login', asUser(p, { email, password: 'password-123' }));
    expect(r.status).toBe(403);
    const [e] = await entries(p, 'user.login_failed');
    expect(e).toMatchObject({
      actor: { type: 'end-user', id: s.body.user._id },
      details: { email, reason: 'email_not_verified' },
    });
    expect(await entries(p, 'user.logged_in')).toEqual([]);
  });

  it('records a replayed refresh token (the family is revoked) with the session it ended', async () => {
    const p = await h.project();
    const email = `replay${Math.random().toString(36).slice(2)}@x.io`;
    const s = await h.call('POST', '/api/userAuth/signup', asUser(p, { email, password: 'password-123' }));
    const first = s.body.refreshToken as string;
    const refresh = (token: string) =>
      h.call('POST', '/api/userAuth/refresh-token', {
        ...asUser(p, undefined, { headers: { 'x-refresh-token': token } }),
      });
    expect((await refresh(first)).status).toBe(200);
    h.advance(h.config.REFRESH_REUSE_GRACE_SECONDS + 1);
    try {
      const replay = await refresh(first);
      expect(replay.body.code).toBe('REFRESH_TOKEN_REUSED');
    } finally {
      h.advance(-(h.config.REFRESH_REUSE_GRACE_SECONDS + 1));
    }
    const [e, ...more] = await entries(p, 'user.refresh_token_reused');
    expect(more).toEqual([]);
    expect(e).toMatchObject({
      actor: { type: 'anonymous' },
      target: { type: 'user', id: s.body.user._id },
      clientIp: ip,
      details: { sessionId: expect.any(String) },
    });
  });

  it('records a password change by the user and a reset by the code’s holder, each with the change', async () => {
    const p = await h.project();
    const email = `pw${Math.random().toString(36).slice(2)}@x.io`;
    const s = await h.call('POST', '/api/userAuth/signup', asUser(p, { email, password: 'password-123' }));
    const userId = s.body.user._id as string;
    const changed = await h.call('PUT', '/api/userAuth/change-password', {
      ...asUser(p, { currentPassword: 'password-123', newPassword: 'password-456' }),
      token: s.body.accessToken as string,
    });
    expect(changed.status).toBe(200);
    // a refused change records nothing
    const refused = await h.call('PUT', '/api/userAuth/change-password', {
      ...asUser(p, { currentPassword: 'wrong-password', newPassword: 'password-789' }),
      token: s.body.accessToken as string,
    });
    expect(refused.status).toBe(400);
    expect((await h.call('POST', '/api/userAuth/request-password-reset', asUser(p, { email }))).status).toBe(
      200,
    );
    await h.relay.flush();
    const requested = h.published
      .filter((e) => e.type === 'auth.password_reset_requested' && e.projectId === p)
      .pop();
    if (!requested) throw new Error('no reset requested');
    const reset = await h.call(
      'POST',
      '/api/userAuth/reset-password',
      asUser(p, { token: h.codes(requested).token, newPassword: 'password-000' }),
    );
    expect(reset.status).toBe(200);

    const [change, ...moreChanges] = await entries(p, 'user.password_changed');
    expect(moreChanges).toEqual([]);
    expect(change).toMatchObject({
      actor: { type: 'end-user', id: userId },
      target: { type: 'user', id: userId },
      clientIp: ip,
    });
    const [r, ...moreResets] = await entries(p, 'user.password_reset');
    expect(moreResets).toEqual([]);
    expect(r).toMatchObject({
      actor: { type: 'anonymous' },
      target: { type: 'user', id: userId },
      clientIp: ip,
    });
  });

  it('writes a sign-in’s entry with its session: both, or neither when the session is not stored', async () => {
    const p = (await newProject()).id;
    const now = new Date();
    const later = new Date(now.getTime() + 3_600_000);
    const family = {
      id: `fam-${Math.random().toString(36).slice(2)}`,
      projectId: p,
      userId: 'u1',
      createdAt: now,
      expiresAt: later,
    };
    const token = (hash: string) => ({
      hash,
      projectId: p,
      userId: 'u1',
      familyId: family.id,
      issuedAt: now,
      expiresAt: later,
    });
    const signedIn = (requestId: string) =>
      userSecurityEntry({
        projectId: p,
        origin: { clientIp: ip, requestId },
        action: 'user.logged_in',
        actor: { type: 'end-user', id: 'u1' },
        userId: 'u1',
        at: now,
      });
    await h.wiring.sessions.startFamily(family, token(`h1-${family.id}`), signedIn('with-session'));
    expect(await h.wiring.sessions.findFamily(p, family.id)).toMatchObject({ userId: 'u1' });
    // the same family id again: the session is refused, and so is its entry
    await expect(
      h.wiring.sessions.startFamily(family, token(`h2-${family.id}`), signedIn('without-session')),
    ).rejects.toThrow();
    const kept = await entries(p, 'user.logged_in');
    expect(kept.map((e) => [e.requestId, e.clientIp, e.target])).toEqual([
      ['with-session', ip, { type: 'user', id: 'u1' }],
    ]);
  });
});

describe('audit retention (AUDIT_RETENTION_DAYS, applied by the janitor’s purge-expired)', () => {
  const DAY = 86_400_000;

  it('removes entries older than the retention, oldest first and in batches, and keeps the rest', async () => {
    const { purgeExpired } = await import('../../src/domain/maintenance/purge-expired');
    const p = await h.project();
    const now = new Date();
    const entry = (id: string, ageDays: number) => ({
      id: `${p}-${id}`,
      projectId: p,
      at: new Date(now.getTime() - ageDays * DAY),
      action: 'user.logged_in' as const,
      actor: { type: 'end-user' as const, id: 'u' },
      target: { type: 'user' as const, id: 'u' },
      requestId: null,
      clientIp: null,
      details: null,
    });
    // 366 and 400 days old go; 364 days (inside the retention) and today stay
    for (const [id, age] of [
      ['a', 400],
      ['b', 366],
      ['c', 364],
      ['d', 0],
    ] as const)
      await h.wiring.audit.append(entry(id, age));
    const deps = {
      users: h.wiring.users,
      sessions: h.wiring.sessions,
      claims: h.wiring.claims,
      clock: () => now,
      auditRetention: { log: h.wiring.audit, days: 365 },
    };
    const ids = async () =>
      ((await auditOf(p, '?limit=100')).body.data.items as Entry[])
        .map((e) => e.id.slice(p.length + 1))
        .sort();
    // other suites' expired sessions and codes share the batch: loop as the janitor does
    for (let i = 0; i < 100; i++) {
      const r = await purgeExpired(deps, { olderThan: now.toISOString(), batchSize: 1 });
      expect(r.processed).toBeLessThanOrEqual(1);
      if (!r.more) break;
    }
    expect(await ids()).toEqual(['c', 'd']);

    // 0 keeps everything
    await h.wiring.audit.append(entry('e', 5000));
    await purgeExpired(
      { ...deps, auditRetention: { log: h.wiring.audit, days: 0 } },
      { olderThan: now.toISOString(), batchSize: 1000 },
    );
    expect(await ids()).toEqual(['c', 'd', 'e']);
  });
});
