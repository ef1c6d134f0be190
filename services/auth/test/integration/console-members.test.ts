import { consoleSessionTokenHash, type ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';
import {
  PASSWORD,
  actor,
  consoleCookie,
  createAccount,
  eventsOf,
  invite,
  member,
  uniqueEmail,
  type SignedIn,
} from './console-support';

/**
 * A project's console members (issue 16): invitations (mail, inspect, accept for a new and an
 * existing account, single use, expiry, cancellation), the members list, role changes and
 * removal with the last-owner rule, and what the gateway's assertion lets an account do here.
 * Runs on TEST_STORE (postgres by default, or mongodb).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const INVITATION_DAYS = 7;

/** Admin calls on one project, as the platform admin token (or as `account` when given). */
const onProject = (p: ProjectId, extra: { account?: ReturnType<typeof actor>; body?: unknown } = {}) => ({
  admin: true,
  projectId: p,
  ...extra,
});
const members = (p: ProjectId, account?: ReturnType<typeof actor>) =>
  h.call('GET', `/api/admin/projects/${p}/members`, onProject(p, account ? { account } : {}));
const inspect = (token: string) => h.call('POST', '/api/console/invitations/inspect', { body: { token } });
const accept = (token: string, password?: string) =>
  h.call('POST', '/api/console/invitations/accept', {
    body: password === undefined ? { token } : { token, password },
  });
const resolve = (s: SignedIn) =>
  h.call('POST', '/internal/console/sessions/resolve', {
    body: { tokenHash: consoleSessionTokenHash(s.token) },
  });

describe('invitations', () => {
  it('mail a sealed link: the invitation_requested event names the project, role and inviter', async () => {
    const p = await h.project();
    const email = uniqueEmail('invitee');
    const r = await h.call(
      'POST',
      `/api/admin/projects/${p}/members`,
      onProject(p, { body: { email, role: 'developer' } }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.stringMatching(/^[a-f0-9]{24}$/),
      email,
      role: 'developer',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const days = (Date.parse(r.body.data.expiresAt) - Date.parse(r.body.data.createdAt)) / 86_400_000;
    expect(days).toBe(INVITATION_DAYS);
    await h.relay.flush();
    const [e] = eventsOf(h, 'console.invitation_requested', email);
    expect(e).toBeDefined();
    expect(e!.projectId).toBe(p);
    expect(e!.data).toMatchObject({
      invitationId: r.body.data.id,
      email,
      projectId: p,
      projectName: 'it',
      role: 'developer',
      invitedBy: null,
    });
    const token = h.consoleToken(e!);
    expect(JSON.stringify(e)).not.toContain(token);
  });

  it('inspect: what accepting would do, without using the invitation up', async () => {
    const p = await h.project();
    const email = uniqueEmail('inspect');
    const token = await invite(h, p, email, 'viewer');
    for (let i = 0; i < 2; i++) {
      const r = await inspect(token);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual({
        email,
        projectId: p,
        projectName: 'it',
        role: 'viewer',
        accountExists: false,
        expiresAt: expect.any(String),
      });
    }
    const unknown = await inspect('not-a-token');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('INVITATION_NOT_FOUND');
  });

  it('accept for a new email: needs a password, creates the account with the role and signs in', async () => {
    const p = await h.project();
    const email = uniqueEmail('new');
    const token = await invite(h, p, email, 'developer');
    const noPassword = await accept(token);
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.details).toEqual([{ path: 'password', message: expect.any(String) }]);
    const short = await accept(token, 'p'.repeat(7));
    expect(short.status).toBe(400);
    const r = await accept(token, 'p'.repeat(8));
    expect(r.status).toBe(200);
    const cookie = consoleCookie(r.headers);
    expect(cookie).toBeTruthy();
    expect(r.body.data).toMatchObject({
      account: { email, platformAdmin: false },
      memberships: [{ projectId: p, projectName: 'it', role: 'developer' }],
    });
    // The new account signs in with its password from now on.
    expect(
      (await h.call('POST', '/api/console/login', { body: { email, password: 'p'.repeat(8) } })).status,
    ).toBe(200);
  });

  it('accept for an existing account: no password needed (none used), the role is added to its others', async () => {
    const p = await h.project();
    const q = await h.project();
    const a = await createAccount(h);
    await member(h, q, 'viewer', a.email);
    const token = await invite(h, p, a.email.toUpperCase(), 'owner');
    expect((await inspect(token)).body.data.accountExists).toBe(true);
    const r = await accept(token, 'ignored-password');
    expect(r.status).toBe(200);
    expect(r.body.data.account.id).toBe(a.id);
    expect(r.body.data.memberships).toEqual(
      expect.arrayContaining([
        { projectId: p, projectName: 'it', role: 'owner' },
        { projectId: q, projectName: 'it', role: 'viewer' },
      ]),
    );
    expect(
      (await h.call('POST', '/api/console/login', { body: { email: a.email, password: a.password } })).status,
    ).toBe(200);
    expect(h.invalidated.accounts).toContain(a.id);
  });

  it('is used once: a second acceptance or inspection is 404', async () => {
    const p = await h.project();
    const token = await invite(h, p, uniqueEmail('once'), 'viewer');
    expect((await accept(token, PASSWORD)).status).toBe(200);
    for (const r of [await accept(token, PASSWORD), await inspect(token)]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('INVITATION_NOT_FOUND');
    }
  });

  it('expires after 7 days', async () => {
    const p = await h.project();
    const token = await invite(h, p, uniqueEmail('late'), 'viewer');
    h.advance(INVITATION_DAYS * 86_400 - 60);
    expect((await inspect(token)).status).toBe(200);
    h.advance(61);
    expect((await inspect(token)).status).toBe(404);
    expect((await accept(token, PASSWORD)).status).toBe(404);
  });

  it('a new invitation of the same email replaces the pending one', async () => {
    const p = await h.project();
    const email = uniqueEmail('twice');
    const first = await invite(h, p, email, 'viewer');
    const second = await invite(h, p, email, 'developer');
    expect((await inspect(first)).status).toBe(404);
    const r = await accept(second, PASSWORD);
    expect(r.status).toBe(200);
    expect(r.body.data.memberships).toEqual([{ projectId: p, projectName: 'it', role: 'developer' }]);
    const list = await members(p);
    expect(list.body.data.invitations).toEqual([]);
  });

  it('cancelled: its link stops working and it leaves the pending list', async () => {
    const p = await h.project();
    const email = uniqueEmail('cancel');
    const token = await invite(h, p, email, 'viewer');
    const pending = (await members(p)).body.data.invitations as { id: string; email: string }[];
    expect(pending.map((i) => i.email)).toEqual([email]);
    const id = pending[0]!.id;
    const r = await h.call('DELETE', `/api/admin/projects/${p}/members/invitations/${id}`, onProject(p));
    expect(r.status).toBe(200);
    expect((await members(p)).body.data.invitations).toEqual([]);
    expect((await accept(token, PASSWORD)).status).toBe(404);
    const again = await h.call('DELETE', `/api/admin/projects/${p}/members/invitations/${id}`, onProject(p));
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('INVITATION_NOT_FOUND');
  });

  it("cannot be cancelled through another project's path", async () => {
    const p = await h.project();
    const q = await h.project();
    const token = await invite(h, p, uniqueEmail('cross'), 'viewer');
    const [inv] = (await members(p)).body.data.invitations as { id: string }[];
    const r = await h.call('DELETE', `/api/admin/projects/${q}/members/invitations/${inv!.id}`, onProject(q));
    expect(r.status).toBe(404);
    expect((await inspect(token)).status).toBe(200);
  });

  it('is refused for an email whose account already has a role here (409 ALREADY_MEMBER)', async () => {
    const p = await h.project();
    const m = await member(h, p, 'viewer');
    const r = await h.call(
      'POST',
      `/api/admin/projects/${p}/members`,
      onProject(p, { body: { email: `  ${m.email.toUpperCase()}`, role: 'owner' } }),
    );
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('ALREADY_MEMBER');
  });

  it('takes an email of up to 254 characters and the three roles only', async () => {
    const p = await h.project();
    const { emailOfLength } = await import('./console-support');
    const post = (body: unknown) =>
      h.call('POST', `/api/admin/projects/${p}/members`, onProject(p, { body }));
    expect((await post({ email: emailOfLength(254), role: 'viewer' })).status).toBe(201);
    expect((await post({ email: emailOfLength(255), role: 'viewer' })).status).toBe(400);
    for (const role of ['viewer', 'developer', 'owner'])
      expect((await post({ email: uniqueEmail(role), role })).status).toBe(201);
    for (const role of ['admin', 'OWNER', ''])
      expect((await post({ email: uniqueEmail('bad'), role })).status).toBe(400);
  });

  it('is 404 for a project that does not exist or was deleted', async () => {
    const gone = await h.project();
    expect((await h.call('DELETE', `/api/admin/projects/${gone}`, { admin: true })).status).toBe(200);
    const r = await h.call(
      'POST',
      `/api/admin/projects/${gone}/members`,
      onProject(gone, { body: { email: uniqueEmail(), role: 'viewer' } }),
    );
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('PROJECT_NOT_FOUND');
  });
});

describe('members', () => {
  it('lists members with email and role, oldest first, and only pending, unexpired invitations', async () => {
    const p = await h.project();
    const owner = await member(h, p, 'owner');
    const dev = await member(h, p, 'developer');
    const pendingEmail = uniqueEmail('pending');
    await invite(h, p, pendingEmail, 'viewer');
    const r = await members(p);
    expect(r.status).toBe(200);
    expect(r.body.data.members).toEqual([
      { accountId: owner.accountId, email: owner.email, role: 'owner', createdAt: expect.any(String) },
      { accountId: dev.accountId, email: dev.email, role: 'developer', createdAt: expect.any(String) },
    ]);
    expect(r.body.data.invitations).toEqual([
      expect.objectContaining({ email: pendingEmail, role: 'viewer' }),
    ]);
    // Another project's list holds none of them.
    const q = await h.project();
    expect((await members(q)).body.data).toEqual({ members: [], invitations: [] });
  });

  it('changes a role: the member view, the session resolution and the gateways follow', async () => {
    const p = await h.project();
    await member(h, p, 'owner');
    const m = await member(h, p, 'viewer');
    const before = h.invalidated.accounts.length;
    const r = await h.call(
      'PATCH',
      `/api/admin/projects/${p}/members/${m.accountId}`,
      onProject(p, { body: { role: 'developer' } }),
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      accountId: m.accountId,
      email: m.email,
      role: 'developer',
      createdAt: expect.any(String),
    });
    expect((await resolve(m)).body.memberships).toEqual([{ projectId: p, role: 'developer' }]);
    expect(h.invalidated.accounts.slice(before)).toContain(m.accountId);
    const bad = await h.call(
      'PATCH',
      `/api/admin/projects/${p}/members/${m.accountId}`,
      onProject(p, { body: { role: 'root' } }),
    );
    expect(bad.status).toBe(400);
  });

  it('is 404 MEMBER_NOT_FOUND for an account without a role here, or an unknown one', async () => {
    const p = await h.project();
    const q = await h.project();
    const elsewhere = await member(h, q, 'viewer');
    for (const id of [elsewhere.accountId, '0'.repeat(24), 'not-an-id']) {
      const patch = await h.call(
        'PATCH',
        `/api/admin/projects/${p}/members/${id}`,
        onProject(p, { body: { role: 'viewer' } }),
      );
      const del = await h.call('DELETE', `/api/admin/projects/${p}/members/${id}`, onProject(p));
      for (const r of [patch, del]) {
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('MEMBER_NOT_FOUND');
      }
    }
    expect((await resolve(elsewhere)).body.memberships).toEqual([{ projectId: q, role: 'viewer' }]);
  });

  it('removes a member: its role here is gone at once, its other roles stay', async () => {
    const p = await h.project();
    const q = await h.project();
    await member(h, p, 'owner');
    const m = await member(h, p, 'developer');
    await accept(await invite(h, q, m.email, 'viewer'));
    const before = h.invalidated.accounts.length;
    const r = await h.call('DELETE', `/api/admin/projects/${p}/members/${m.accountId}`, onProject(p));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ accountId: m.accountId });
    expect((await resolve(m)).body.memberships).toEqual([{ projectId: q, role: 'viewer' }]);
    expect((await members(p)).body.data.members.map((x: { accountId: string }) => x.accountId)).not.toContain(
      m.accountId,
    );
    expect(h.invalidated.accounts.slice(before)).toContain(m.accountId);
    // Removed, it may be invited again.
    expect((await accept(await invite(h, p, m.email, 'viewer'))).status).toBe(200);
  });

  it('refuses to demote or remove the last owner (409 LAST_OWNER), and allows it with another owner', async () => {
    const p = await h.project();
    const first = await member(h, p, 'owner');
    const dev = await member(h, p, 'developer');
    for (const role of ['developer', 'viewer']) {
      const r = await h.call(
        'PATCH',
        `/api/admin/projects/${p}/members/${first.accountId}`,
        onProject(p, { body: { role } }),
      );
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('LAST_OWNER');
    }
    const del = await h.call('DELETE', `/api/admin/projects/${p}/members/${first.accountId}`, onProject(p));
    expect(del.status).toBe(409);
    expect(del.body.code).toBe('LAST_OWNER');
    expect((await resolve(first)).body.memberships).toEqual([{ projectId: p, role: 'owner' }]);
    // Keeping the owner an owner is fine; a second owner lets the first go.
    const setRole = async (accountId: string, role: string) =>
      (
        await h.call(
          'PATCH',
          `/api/admin/projects/${p}/members/${accountId}`,
          onProject(p, { body: { role } }),
        )
      ).status;
    expect(await setRole(first.accountId, 'owner')).toBe(200);
    expect(await setRole(dev.accountId, 'owner')).toBe(200);
    expect(await setRole(first.accountId, 'viewer')).toBe(200);
    expect(
      (await h.call('DELETE', `/api/admin/projects/${p}/members/${dev.accountId}`, onProject(p))).status,
    ).toBe(409);
  });

  it('keeps exactly one owner when two owners demote each other at the same time', async () => {
    const p = await h.project();
    const a = await member(h, p, 'owner');
    const b = await member(h, p, 'owner');
    const [ra, rb] = await Promise.all([
      h.call(
        'PATCH',
        `/api/admin/projects/${p}/members/${a.accountId}`,
        onProject(p, { body: { role: 'viewer' } }),
      ),
      h.call(
        'PATCH',
        `/api/admin/projects/${p}/members/${b.accountId}`,
        onProject(p, { body: { role: 'viewer' } }),
      ),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const owners = (await members(p)).body.data.members.filter((m: { role: string }) => m.role === 'owner');
    expect(owners).toHaveLength(1);
  });
});

describe('what an account may do here (besides the gateway)', () => {
  it('an owner manages members; a viewer or developer may only read them', async () => {
    const p = await h.project();
    const owner = await member(h, p, 'owner');
    const viewer = await member(h, p, 'viewer');
    const dev = await member(h, p, 'developer');
    const asOwner = actor({ id: owner.accountId, email: owner.email });
    const invited = await h.call(
      'POST',
      `/api/admin/projects/${p}/members`,
      onProject(p, { account: asOwner, body: { email: uniqueEmail(), role: 'viewer' } }),
    );
    expect(invited.status).toBe(201);
    for (const m of [viewer, dev]) {
      const as = actor({ id: m.accountId, email: m.email });
      expect((await members(p, as)).status).toBe(200);
      const r = await h.call(
        'POST',
        `/api/admin/projects/${p}/members`,
        onProject(p, { account: as, body: { email: uniqueEmail(), role: 'owner' } }),
      );
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('INSUFFICIENT_ROLE');
      const promote = await h.call(
        'PATCH',
        `/api/admin/projects/${p}/members/${m.accountId}`,
        onProject(p, { account: as, body: { role: 'owner' } }),
      );
      expect(promote.status).toBe(403);
    }
  });

  it("an account reaches no other project's members (404, as if it did not exist)", async () => {
    const p = await h.project();
    const q = await h.project();
    const owner = await member(h, p, 'owner');
    await member(h, q, 'owner');
    const as = actor({ id: owner.accountId, email: owner.email });
    const list = await members(q, as);
    expect(list.status).toBe(404);
    expect(list.body.code).toBe('PROJECT_NOT_FOUND');
    const r = await h.call(
      'POST',
      `/api/admin/projects/${q}/members`,
      onProject(q, { account: as, body: { email: uniqueEmail(), role: 'owner' } }),
    );
    expect(r.status).toBe(404);
  });

  it("a project's audit log is for its viewers and above; the whole log for platform admins", async () => {
    const p = await h.project();
    const q = await h.project();
    const viewer = await member(h, p, 'viewer');
    const as = actor({ id: viewer.accountId, email: viewer.email });
    const mine = await h.call('GET', `/api/admin/projects/${p}/audit`, { admin: true, account: as });
    expect(mine.status).toBe(200);
    const other = await h.call('GET', `/api/admin/projects/${q}/audit`, { admin: true, account: as });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('PROJECT_NOT_FOUND');
    const all = await h.call('GET', '/api/admin/audit', { admin: true, account: as });
    expect(all.status).toBe(403);
    expect(all.body.code).toBe('PLATFORM_ADMIN_REQUIRED');
  });

  it('a platform admin account manages any project', async () => {
    const p = await h.project();
    const a = await createAccount(h, { platformAdmin: true });
    const r = await h.call(
      'POST',
      `/api/admin/projects/${p}/members`,
      onProject(p, { account: actor(a, true), body: { email: uniqueEmail(), role: 'owner' } }),
    );
    expect(r.status).toBe(201);
  });

  it('the console account API is for platform admins only', async () => {
    const plain = await createAccount(h);
    const admin = await createAccount(h, { platformAdmin: true });
    const asPlain = await h.call('GET', '/api/admin/console/accounts', {
      admin: true,
      account: actor(plain),
    });
    expect(asPlain.status).toBe(403);
    expect(asPlain.body.code).toBe('PLATFORM_ADMIN_REQUIRED');
    const asAdmin = await h.call('GET', '/api/admin/console/accounts', {
      admin: true,
      account: actor(admin, true),
    });
    expect(asAdmin.status).toBe(200);
    const noAdmin = await h.call('GET', '/api/admin/console/accounts', {});
    expect(noAdmin.status).toBe(401);
    expect(noAdmin.body.code).toBe('ADMIN_TOKEN_REQUIRED');
  });
});

describe('project deletion', () => {
  it("removes the project's memberships and invitations and drops its members' cached sessions", async () => {
    const p = await h.project();
    const q = await h.project();
    const owner = await member(h, p, 'owner');
    await accept(await invite(h, q, owner.email, 'viewer'));
    const token = await invite(h, p, uniqueEmail('orphan'), 'viewer');
    const before = h.invalidated.accounts.length;
    expect((await h.call('DELETE', `/api/admin/projects/${p}`, { admin: true })).status).toBe(200);
    expect(h.invalidated.accounts.slice(before)).toContain(owner.accountId);
    expect((await resolve(owner)).body.memberships).toEqual([{ projectId: q, role: 'viewer' }]);
    expect((await inspect(token)).status).toBe(404);
    expect(await storedRows(p)).toEqual({ memberships: 0, invitations: 0 });
    const session = await h.call('GET', '/api/console/session', { headers: owner.headers() });
    expect(session.body.data.memberships).toEqual([{ projectId: q, projectName: 'it', role: 'viewer' }]);
  });
});

/** Stored memberships and invitations of a project (tombstones waiting for the relay excluded). */
async function storedRows(p: ProjectId): Promise<{ memberships: number; invitations: number }> {
  const store = h.store;
  if (store.kind === 'postgres') {
    const n = async (table: string) =>
      Number(
        (await store.pool.query(`SELECT count(*) AS n FROM ${table} WHERE project_id = $1`, [p])).rows[0].n,
      );
    return { memberships: await n('console_memberships'), invitations: await n('console_invitations') };
  }
  await h.relay.flush();
  const n = (coll: string) => store.db.collection(coll).countDocuments({ projectId: p });
  return { memberships: await n('console_memberships'), invitations: await n('console_invitations') };
}
