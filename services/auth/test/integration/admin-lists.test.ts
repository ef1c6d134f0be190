import type { ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';

/**
 * The console's lists (issue 15): projects, and a project's users with an email search; both
 * newest first, by cursor, `limit` a positive integer clamped to 100. Runs on TEST_STORE
 * (postgres by default, or mongodb).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const admin = { admin: true } as const;

async function createProject(name: string): Promise<ProjectId> {
  const r = await h.call('POST', '/api/admin/projects', { ...admin, body: { name } });
  expect(r.status).toBe(201);
  return r.body.id as ProjectId;
}

/** Every page of a list, following nextCursor. */
async function allPages(path: string, opts: { admin: true; projectId?: ProjectId }, limit: number) {
  const items: Array<{ id: string; _id: string }> = [];
  let cursor = '';
  for (let i = 0; i < 1000; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await h.call('GET', `${path}${sep}limit=${limit}&cursor=${encodeURIComponent(cursor)}`, opts);
    expect(r.status).toBe(200);
    expect(r.body.data.items.length).toBeLessThanOrEqual(limit);
    items.push(...r.body.data.items);
    if (r.body.data.nextCursor === null) return items;
    cursor = r.body.data.nextCursor;
  }
  throw new Error('no last page');
}

async function signup(projectId: ProjectId, email: string): Promise<string> {
  const r = await h.call('POST', '/api/userAuth/signup', {
    projectId,
    body: { email, password: 'password-123' },
  });
  expect(r.status).toBe(201);
  return String(r.body.user._id);
}

describe('GET /api/admin/projects', () => {
  it('lists live projects newest first, page by page, with keys by prefix only', async () => {
    const a = await createProject('list-a');
    const b = await createProject('list-b');
    const c = await createProject('list-c');
    const gone = await createProject('list-gone');
    expect((await h.call('DELETE', `/api/admin/projects/${gone}`, admin)).status).toBe(200);

    const first = await h.call('GET', '/api/admin/projects?limit=2', admin);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, message: 'Projects' });
    expect(first.body.data).toMatchObject({ cursor: '', limit: 2 });
    // Ids start with their creation second: newest first to the second, then by id.
    const byIdDesc = (ids: string[]) => [...ids].sort().reverse();
    const firstIds = first.body.data.items.map((p: { id: string }) => p.id);
    expect(firstIds).toEqual(byIdDesc(firstIds));
    expect(first.body.data.nextCursor).toEqual(expect.any(String));
    const item = first.body.data.items[0];
    expect(Object.keys(item).sort()).toEqual(['createdAt', 'id', 'keys', 'name', 'settings', 'updatedAt']);
    expect(JSON.stringify(first.body)).not.toMatch(/sk_live_[A-Za-z0-9_-]{20}/);

    const ids = (await allPages('/api/admin/projects', admin, 2)).map((p) => p.id);
    expect(ids).toEqual(byIdDesc(ids));
    expect(ids).toEqual(expect.arrayContaining([a, b, c]));
    expect(ids).not.toContain(gone);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('ends with nextCursor null when the page holds exactly the rest', async () => {
    const all = await allPages('/api/admin/projects', admin, 100);
    const r = await h.call('GET', `/api/admin/projects?limit=${all.length}`, admin);
    expect(r.body.data.items).toHaveLength(all.length);
    expect(r.body.data.nextCursor).toBeNull();
  });

  it('clamps limit to 100 and refuses one that is not a positive integer, or a foreign cursor', async () => {
    expect((await h.call('GET', '/api/admin/projects?limit=100', admin)).body.data.limit).toBe(100);
    expect((await h.call('GET', '/api/admin/projects?limit=101', admin)).body.data.limit).toBe(100);
    for (const q of ['limit=0', 'limit=-1', 'limit=1.5', 'limit=abc', 'cursor=bm90LWFuLWlk', 'bogus=1']) {
      const r = await h.call('GET', `/api/admin/projects?${q}`, admin);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
  });

  it('is for the platform admin only', async () => {
    const r = await h.call('GET', '/api/admin/projects', {});
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('ADMIN_TOKEN_REQUIRED');
  });
});

describe('GET /api/admin/projects/:projectId/users', () => {
  it("lists one project's users newest first, never another project's, never a password", async () => {
    const p = await createProject('users-list');
    const other = await createProject('users-other');
    const u1 = await signup(p, 'ada@example.com');
    const u2 = await signup(p, 'Grace.Hopper@Example.com');
    const u3 = await signup(p, 'alan@turing.org');
    await signup(other, 'ada@example.com');

    const r = await h.call('GET', `/api/admin/projects/${p}/users`, { ...admin, projectId: p });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: 'Users', data: { cursor: '', limit: 20 } });
    const newestFirst = [u1, u2, u3].sort().reverse();
    expect(r.body.data.items.map((u: { _id: string }) => u._id)).toEqual(newestFirst);
    expect(r.body.data.nextCursor).toBeNull();
    expect(r.body.data.items.find((u: { _id: string }) => u._id === u2)).toMatchObject({
      email: 'Grace.Hopper@Example.com',
      emailVerified: false,
    });
    expect(JSON.stringify(r.body)).not.toMatch(/password|argon2|codes/i);

    const paged = await allPages(`/api/admin/projects/${p}/users`, { ...admin, projectId: p }, 1);
    expect(paged.map((u) => u._id)).toEqual(newestFirst);
    const o = await h.call('GET', `/api/admin/projects/${other}/users`, { ...admin, projectId: other });
    expect(o.body.data.items).toHaveLength(1);
    expect(o.body.data.items[0]._id).not.toBe(u1);
  });

  it('searches emails by any part, case-insensitively, literally', async () => {
    const p = await createProject('users-search');
    const ada = await signup(p, 'ada.lovelace@example.com');
    const grace = await signup(p, 'grace@navy.mil');
    await signup(p, 'alan@turing.org');
    const search = async (q: string): Promise<string[]> => {
      const r = await h.call('GET', `/api/admin/projects/${p}/users?search=${encodeURIComponent(q)}`, {
        ...admin,
        projectId: p,
      });
      expect(r.status).toBe(200);
      return (r.body.data.items as Array<{ _id: string }>).map((u) => u._id);
    };
    expect(await search('ADA')).toEqual([ada]);
    expect(await search('gr')).toEqual([grace]);
    expect(await search('@')).toHaveLength(3);
    expect(await search('.mil')).toEqual([grace]);
    expect(await search('a.a')).toEqual([]); // `.` is a character, not a wildcard
    expect(await search('.*')).toEqual([]);
    expect(await search('')).toHaveLength(3);
  });

  it('refuses a cursor it did not give and a limit that is not a positive integer', async () => {
    const p = await createProject('users-bad-query');
    for (const q of ['limit=0', 'cursor=%%%', 'search=a&search=b', 'page=2']) {
      const r = await h.call('GET', `/api/admin/projects/${p}/users?${q}`, { ...admin, projectId: p });
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
  });

  it('is 404 for a project id the assertion does not name', async () => {
    const p = await createProject('users-mismatch');
    const other = await createProject('users-mismatch-other');
    const r = await h.call('GET', `/api/admin/projects/${p}/users`, { ...admin, projectId: other });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('PROJECT_NOT_FOUND');
  });
});
