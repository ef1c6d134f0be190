import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { client, createProject, type CallResult } from '../support/e2e';
import { uploadBytes } from './storage-helpers';
import { uniqueAddress } from '../../services/mail/test/support/mailpit';

/**
 * Issue 15 through the gateway: what a console needs (projects, users with search, a project's
 * usage composed from three services) with its cross-project negatives, and the OpenAPI
 * document — served without a key, and every route it documents answers.
 */
const UNKNOWN = '64b7f0c2a1b2c3d4e5f60718';
const OPENAPI_FILE = join(__dirname, '..', '..', 'services', 'gateway', 'openapi.json');

describe('GET /api/openapi.json', () => {
  it('serves the committed document without a key, cacheable', async () => {
    const call = client();
    const r = await call('GET', '/api/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = r.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const again = await call('GET', '/api/openapi.json', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('every documented route answers through the gateway', () => {
  it('no operation of the document is an unknown route', async () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
      paths: Record<string, Record<string, { security: Array<Record<string, unknown>> }>>;
    };
    const p = await createProject({}, 'openapi-coverage');
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    // Deleting the project last, so the routes before it meet a live project.
    ops.sort(
      (a, b) =>
        Number(a.method === 'DELETE' && a.path === '/api/admin/projects/{projectId}') -
        Number(b.method === 'DELETE' && b.path === '/api/admin/projects/{projectId}'),
    );
    let call = client();
    let calls = 0;
    const unknown: string[] = [];
    for (const { path, method, op } of ops) {
      if (++calls % 15 === 0) call = client(); // stay clear of the per-IP limits
      const concrete = path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        name === 'projectId' ? p.id : name === 'id' || name === 'userId' ? UNKNOWN : 'things',
      );
      const security = op.security[0] ?? {};
      const r: CallResult = await call(method, concrete, {
        ...('adminToken' in security ? { admin: true } : {}),
        ...('apiKey' in security ? { key: p.secretKey } : {}),
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      if (r.status === 404 && r.body?.code === 'ROUTE_NOT_FOUND') unknown.push(`${method} ${path}`);
    }
    expect(unknown).toEqual([]);
  });
});

describe('the admin console API', () => {
  const call = client();

  it('lists projects newest first by cursor; limit is clamped to 100 and checked', async () => {
    const mine = await createProject({}, 'console-list');
    const first = await call('GET', '/api/admin/projects?limit=100', { admin: true });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ cursor: '', limit: 100 });
    expect(first.body.data.items.map((x: { id: string }) => x.id)).toContain(mine.id);
    const listed = first.body.data.items.find((x: { id: string }) => x.id === mine.id);
    expect(listed.keys.secret.prefix).toBe(mine.secretKey.slice(0, 12));
    expect(JSON.stringify(first.body)).not.toContain(mine.secretKey);
    expect((await call('GET', '/api/admin/projects?limit=101', { admin: true })).body.data.limit).toBe(100);
    const one = await call('GET', '/api/admin/projects?limit=1', { admin: true });
    expect(one.body.data.items).toHaveLength(1);
    const next = await call(
      'GET',
      `/api/admin/projects?limit=1&cursor=${encodeURIComponent(one.body.data.nextCursor)}`,
      { admin: true },
    );
    expect(next.status).toBe(200);
    expect(next.body.data.items[0]?.id).not.toBe(one.body.data.items[0].id);
    for (const q of ['limit=0', 'limit=x', 'cursor=bogus']) {
      const r = await call('GET', `/api/admin/projects?${q}`, { admin: true });
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
    const withKey = await call('GET', '/api/admin/projects', { key: mine.secretKey });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });

  it("lists and searches one project's users, never another's", async () => {
    const a = await createProject({}, 'console-users-a');
    const b = await createProject({}, 'console-users-b');
    const signup = async (key: string, email: string) => {
      const r = await client()('POST', '/api/userAuth/signup', {
        key,
        body: { email, password: 'password-123' },
      });
      expect(r.status).toBe(201);
      return r.body.user._id as string;
    };
    const ada = await signup(a.publishableKey, 'ada@console.test');
    const grace = await signup(a.publishableKey, 'grace@console.test');
    const bOnly = await signup(b.publishableKey, 'ada@console.test');

    const all = await call('GET', `/api/admin/projects/${a.id}/users`, { admin: true });
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((u: { _id: string }) => u._id).sort()).toEqual([ada, grace].sort());
    expect(JSON.stringify(all.body)).not.toMatch(/password/i);
    const found = await call('GET', `/api/admin/projects/${a.id}/users?search=ADA@`, { admin: true });
    expect(found.body.data.items.map((u: { _id: string }) => u._id)).toEqual([ada]);
    const page = await call('GET', `/api/admin/projects/${a.id}/users?limit=1`, { admin: true });
    expect(page.body.data.items).toHaveLength(1);
    const rest = await call(
      'GET',
      `/api/admin/projects/${a.id}/users?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
      { admin: true },
    );
    expect(rest.body.data.items).toHaveLength(1);
    expect(rest.body.data.nextCursor).toBeNull();
    const ofB = await call('GET', `/api/admin/projects/${b.id}/users`, { admin: true });
    expect(ofB.body.data.items.map((u: { _id: string }) => u._id)).toEqual([bOnly]);
    // A cursor from one project's list gives nothing of it in another's.
    const crossed = await call(
      'GET',
      `/api/admin/projects/${b.id}/users?cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
      { admin: true },
    );
    expect(crossed.body.data.items.map((u: { _id: string }) => u._id)).not.toContain(ada);
    expect(crossed.body.data.items.map((u: { _id: string }) => u._id)).not.toContain(grace);
    const missing = await call('GET', `/api/admin/projects/${UNKNOWN}/users`, { admin: true });
    expect([missing.status, missing.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    const withKey = await call('GET', `/api/admin/projects/${a.id}/users`, { key: a.secretKey });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });

  it("composes a project's usage from data, storage and mail, per project", async () => {
    const p = await createProject({ limits: { documents: 50, storageBytes: 4096, mailMonthly: 7 } }, 'usage');
    const other = await createProject({}, 'usage-other');
    expect(
      (await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, { admin: true, body: {} })).status,
    ).toBe(201);
    for (const title of ['a', 'b'])
      expect((await call('POST', '/api/data/notes', { key: p.secretKey, body: { title } })).status).toBe(201);
    const up = await uploadBytes(
      call,
      p.secretKey,
      Buffer.alloc(300, 1),
      'u.bin',
      'application/octet-stream',
    );
    expect(up.status).toBe(201);
    const mail = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), subject: 'usage', text: 'hello' },
    });
    expect(mail.status).toBe(200);

    const r = await call('GET', `/api/admin/projects/${p.id}/usage`, { admin: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        projectId: p.id,
        documents: { count: 2, limit: 50 },
        storage: { bytes: 300, limit: 4096 },
        mail: { month: new Date().toISOString().slice(0, 7), sent: 1, limit: 7 },
      },
      message: 'Project usage',
    });
    const o = await call('GET', `/api/admin/projects/${other.id}/usage`, { admin: true });
    expect(o.body.data).toMatchObject({ documents: { count: 0 }, storage: { bytes: 0 }, mail: { sent: 0 } });
    const parts = await Promise.all(
      ['data', 'storage'].map((s) => call('GET', `/api/admin/projects/${p.id}/${s}/usage`, { admin: true })),
    );
    expect(parts.map((x): unknown => x.body.data)).toEqual([
      { documents: 2, limit: 50 },
      { bytes: 300, limit: 4096 },
    ]);
    const missing = await call('GET', `/api/admin/projects/${UNKNOWN}/usage`, { admin: true });
    expect([missing.status, missing.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    const withKey = await call('GET', `/api/admin/projects/${p.id}/usage`, { key: p.secretKey });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });
});
