import type { ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';
import { recordAuditEntry } from '../../src/domain/audit/record-audit-entry';
import {
  PASSWORD,
  actor,
  createAccount,
  emailOfLength,
  member,
  signIn,
  uniqueEmail,
} from './console-support';

/**
 * Console accounts as platform admins manage them (issue 16), the platform-wide project list
 * narrowed to an account's projects, and the audit log naming the console account that acted.
 * Runs on TEST_STORE (postgres by default, or mongodb).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const admin = { admin: true } as const;
const create = (body: unknown) => h.call('POST', '/api/admin/console/accounts', { ...admin, body });
const login = (email: string, password: string) =>
  h.call('POST', '/api/console/login', { body: { email, password } });

describe('POST /api/admin/console/accounts', () => {
  it('creates an account (never showing its hash) that signs in with its password', async () => {
    const email = uniqueEmail('new');
    const r = await create({ email, password: PASSWORD });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      message: 'Console account created',
      data: {
        id: expect.stringMatching(/^[a-f0-9]{24}$/),
        email,
        platformAdmin: false,
        createdAt: expect.any(String),
        memberships: [],
      },
    });
    expect(JSON.stringify(r.body)).not.toMatch(/argon2|passwordHash/);
    expect((await login(email, PASSWORD)).status).toBe(200);
    expect(
      (await create({ email: uniqueEmail(), password: PASSWORD, platformAdmin: true })).body.data
        .platformAdmin,
    ).toBe(true);
  });

  it('refuses an email another account holds, in any case (409 EMAIL_TAKEN)', async () => {
    const a = await createAccount(h);
    const r = await create({ email: ` ${a.email.toUpperCase()} `, password: PASSWORD });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('EMAIL_TAKEN');
  });

  it('takes an email of 254 characters and refuses 255, or anything that is not an address', async () => {
    expect((await create({ email: emailOfLength(254), password: PASSWORD })).status).toBe(201);
    expect((await create({ email: emailOfLength(255), password: PASSWORD })).status).toBe(400);
    expect((await create({ email: 'not-an-email', password: PASSWORD })).status).toBe(400);
  });

  it("applies the end users' password policy: 8 to 128 characters", async () => {
    for (const [len, status] of [
      [7, 400],
      [8, 201],
      [128, 201],
      [129, 400],
    ] as const) {
      const email = uniqueEmail(`pw${len}`);
      const r = await create({ email, password: 'p'.repeat(len) });
      expect([len, r.status]).toEqual([len, status]);
      if (status === 201) expect((await login(email, 'p'.repeat(len))).status).toBe(200);
    }
  });

  it('refuses unknown fields', async () => {
    const r = await create({ email: uniqueEmail(), password: PASSWORD, id: '0'.repeat(24) });
    expect(r.status).toBe(400);
  });
});

describe('GET /api/admin/console/accounts', () => {
  it('lists accounts newest first with their memberships, by cursor, searchable by email part', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const a = await createAccount(h, { email: `${tag}-one@example.com` });
    const b = await createAccount(h, { email: `${tag}-two@example.com` });
    const p = await h.project();
    await member(h, p, 'developer', b.email);
    // Ids begin with their creation second: within one second the order is the id's random part.
    const first = await h.call(
      'GET',
      `/api/admin/console/accounts?search=${tag.toUpperCase()}&limit=1`,
      admin,
    );
    expect(first.status).toBe(200);
    expect(first.body.data.items).toHaveLength(1);
    expect(first.body.data.limit).toBe(1);
    expect(first.body.data.nextCursor).toEqual(expect.any(String));
    const second = await h.call(
      'GET',
      `/api/admin/console/accounts?search=${tag}&limit=1&cursor=${first.body.data.nextCursor}`,
      admin,
    );
    expect(second.body.data.items).toHaveLength(1);
    expect(second.body.data.nextCursor).toBeNull();
    const items = [...first.body.data.items, ...second.body.data.items];
    expect(items.map((i: { id: string }) => i.id)).toEqual([a.id, b.id].sort().reverse());
    expect(items).toEqual(
      expect.arrayContaining([
        { id: a.id, email: a.email, platformAdmin: false, createdAt: expect.any(String), memberships: [] },
        {
          id: b.id,
          email: b.email,
          platformAdmin: false,
          createdAt: expect.any(String),
          memberships: [{ projectId: p, role: 'developer' }],
        },
      ]),
    );
    expect((await h.call('GET', '/api/admin/console/accounts?cursor=bogus', admin)).status).toBe(400);
    expect((await h.call('GET', '/api/admin/console/accounts?limit=0', admin)).status).toBe(400);
    expect((await h.call('GET', '/api/admin/console/accounts?other=1', admin)).status).toBe(400);
  });

  it('treats the search as literal text', async () => {
    await createAccount(h);
    const r = await h.call('GET', `/api/admin/console/accounts?search=${encodeURIComponent('.*')}`, admin);
    expect(r.status).toBe(200);
    expect(r.body.data.items).toEqual([]);
  });
});

describe('PATCH /api/admin/console/accounts/:accountId', () => {
  it('grants and withdraws platform admin; the session resolution follows at once', async () => {
    const a = await createAccount(h);
    const s = await signIn(h, a.email);
    const before = h.invalidated.accounts.length;
    const r = await h.call('PATCH', `/api/admin/console/accounts/${a.id}`, {
      ...admin,
      body: { platformAdmin: true },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: a.id, platformAdmin: true });
    expect(h.invalidated.accounts.slice(before)).toContain(a.id);
    const resolved = await h.call('POST', '/internal/console/sessions/resolve', {
      body: { tokenHash: (await import('@baas/common')).consoleSessionTokenHash(s.token) },
    });
    expect(resolved.body.platformAdmin).toBe(true);
    const back = await h.call('PATCH', `/api/admin/console/accounts/${a.id}`, {
      ...admin,
      body: { platformAdmin: false },
    });
    expect(back.body.data.platformAdmin).toBe(false);
  });

  it('is 404 for an unknown or malformed id and 400 for anything but platformAdmin', async () => {
    const a = await createAccount(h);
    for (const id of ['0'.repeat(24), 'nope']) {
      const r = await h.call('PATCH', `/api/admin/console/accounts/${id}`, {
        ...admin,
        body: { platformAdmin: true },
      });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('ACCOUNT_NOT_FOUND');
    }
    for (const body of [{}, { platformAdmin: 'yes' }, { platformAdmin: true, email: 'x@y.io' }])
      expect((await h.call('PATCH', `/api/admin/console/accounts/${a.id}`, { ...admin, body })).status).toBe(
        400,
      );
  });
});

describe('DELETE /api/admin/console/accounts/:accountId', () => {
  it('deletes the account with its memberships and sessions; its email is free again', async () => {
    const p = await h.project();
    const m = await member(h, p, 'developer');
    const before = h.invalidated.accounts.length;
    const r = await h.call('DELETE', `/api/admin/console/accounts/${m.accountId}`, admin);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: m.accountId });
    expect(h.invalidated.accounts.slice(before)).toContain(m.accountId);
    expect((await h.call('GET', '/api/console/session', { headers: m.headers() })).status).toBe(401);
    expect((await login(m.email, PASSWORD)).status).toBe(401);
    const list = await h.call('GET', `/api/admin/projects/${p}/members`, { admin: true, projectId: p });
    expect(list.body.data.members).toEqual([]);
    expect((await h.call('DELETE', `/api/admin/console/accounts/${m.accountId}`, admin)).status).toBe(404);
    expect((await create({ email: m.email, password: PASSWORD })).status).toBe(201);
  });
});

describe('GET /api/admin/projects narrowed by the assertion scope', () => {
  async function newProject(name: string): Promise<ProjectId> {
    const r = await h.call('POST', '/api/admin/projects', { ...admin, body: { name } });
    expect(r.status).toBe(201);
    return r.body.id as ProjectId;
  }

  it("lists only the scope's projects, page by page; an empty scope lists none; no scope lists all", async () => {
    const [p1, p2, p3] = [await newProject('s1'), await newProject('s2'), await newProject('s3')];
    const scope = [p1, p3];
    const first = await h.call('GET', '/api/admin/projects?limit=1', { ...admin, scope });
    expect(first.status).toBe(200);
    const second = await h.call('GET', `/api/admin/projects?limit=1&cursor=${first.body.data.nextCursor}`, {
      ...admin,
      scope,
    });
    expect(second.body.data.nextCursor).toBeNull();
    // Newest first by id (the creation second, then the id's random part).
    const listed = [...first.body.data.items, ...second.body.data.items].map((p: { id: string }) => p.id);
    expect(listed).toEqual([p1, p3].sort().reverse());
    const none = await h.call('GET', '/api/admin/projects', { ...admin, scope: [] });
    expect(none.body.data).toMatchObject({ items: [], nextCursor: null });
    const all = await h.call('GET', '/api/admin/projects?limit=100', admin);
    expect(all.body.data.items.map((p: { id: string }) => p.id)).toEqual(
      expect.arrayContaining([p1, p2, p3]),
    );
    // A deleted project in the scope is not listed.
    expect((await h.call('DELETE', `/api/admin/projects/${p3}`, admin)).status).toBe(200);
    const after = await h.call('GET', '/api/admin/projects', { ...admin, scope });
    expect(after.body.data.items.map((p: { id: string }) => p.id)).toEqual([p1]);
  });
});

describe('the audit log names the console account that acted', () => {
  async function deliverAudits(): Promise<void> {
    await h.relay.flush();
    for (const e of h.published.filter((x) => x.type === 'audit.recorded'))
      await recordAuditEntry(h.wiring.audit, e);
  }

  it('member.invited, member.role_changed and member.removed, in the project log', async () => {
    const p = await h.project();
    const owner = await member(h, p, 'owner');
    const as = actor({ id: owner.accountId, email: owner.email });
    const on = (body?: unknown) => ({
      admin: true,
      projectId: p,
      account: as,
      clientIp: '203.0.113.7',
      body,
    });
    const email = uniqueEmail('audited');
    expect(
      (await h.call('POST', `/api/admin/projects/${p}/members`, on({ email, role: 'viewer' }))).status,
    ).toBe(201);
    const m = await member(h, p, 'developer');
    expect(
      (await h.call('PATCH', `/api/admin/projects/${p}/members/${m.accountId}`, on({ role: 'viewer' })))
        .status,
    ).toBe(200);
    expect((await h.call('DELETE', `/api/admin/projects/${p}/members/${m.accountId}`, on())).status).toBe(
      200,
    );
    await deliverAudits();
    const log = await h.call('GET', `/api/admin/projects/${p}/audit`, { admin: true });
    expect(log.status).toBe(200);
    const mine = (log.body.data.items as { actor: { type: string; id?: string } }[]).filter(
      (e) => e.actor.type === 'console-account',
    );
    const byAction = Object.fromEntries(mine.map((e) => [(e as unknown as { action: string }).action, e]));
    const actorView = { type: 'console-account', id: owner.accountId, email: owner.email };
    expect(byAction['member.invited']).toMatchObject({
      projectId: p,
      actor: actorView,
      target: { type: 'member', id: email },
      clientIp: '203.0.113.7',
      details: { role: 'viewer', invitationId: expect.stringMatching(/^[a-f0-9]{24}$/) },
    });
    expect(byAction['member.role_changed']).toMatchObject({
      actor: actorView,
      target: { type: 'member', id: m.accountId },
      details: { email: m.email, from: 'developer', to: 'viewer' },
    });
    expect(byAction['member.removed']).toMatchObject({
      actor: actorView,
      target: { type: 'member', id: m.accountId },
      details: { email: m.email, role: 'viewer' },
    });
    // The invitations by the platform token name it instead.
    const byToken = (log.body.data.items as { action: string; actor: { type: string } }[]).filter(
      (e) => e.action === 'member.invited' && e.actor.type === 'platform-admin',
    );
    expect(byToken.length).toBeGreaterThan(0);
    const filtered = await h.call('GET', `/api/admin/projects/${p}/audit?action=member.removed`, {
      admin: true,
    });
    expect(filtered.body.data.items).toHaveLength(1);
  });

  it('console_account.created and console_account.deleted, platform-wide', async () => {
    const platformAdmin = await createAccount(h, { platformAdmin: true });
    const as = actor(platformAdmin, true);
    const email = uniqueEmail('audit-acct');
    const made = await h.call('POST', '/api/admin/console/accounts', {
      admin: true,
      account: as,
      body: { email, password: PASSWORD },
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    expect(
      (await h.call('DELETE', `/api/admin/console/accounts/${id}`, { admin: true, account: as })).status,
    ).toBe(200);
    const log = await h.call('GET', '/api/admin/audit?limit=100', { admin: true });
    const entries = (log.body.data.items as { action: string; target: { id: string } }[]).filter(
      (e) => e.target.id === id,
    );
    const actorView = { type: 'console-account', id: platformAdmin.id, email: platformAdmin.email };
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'console_account.deleted',
        projectId: null,
        actor: actorView,
        target: { type: 'console-account', id },
        details: { email },
      }),
      expect.objectContaining({
        action: 'console_account.created',
        projectId: null,
        actor: actorView,
        target: { type: 'console-account', id },
        details: { email, platformAdmin: false },
      }),
    ]);
  });
});
