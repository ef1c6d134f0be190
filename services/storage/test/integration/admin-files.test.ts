import { randomBytes } from 'node:crypto';
import { signAssertion, type EventEnvelope, type ProjectId } from '@baas/common';
import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { ASSERTION_KEYS, form, keyAssertion, newProjectId, startHarness, type Harness } from './harness';

/**
 * Issue 16: a project's files under the admin API (`/api/admin/projects/:id/files`): listed
 * newest first by cursor, uploaded and deleted through the same use cases, limits and quota as
 * a project key, each change with one `audit.recorded` event beside its `file.*` event (runs on
 * TEST_STORE: postgres or mongodb; the local object store).
 */
const MAX = 64 * 1024;
let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed());
  h = await startHarness('local', MAX);
});
afterAll(async () => {
  await h?.close();
});

/** What the gateway asserts for an admin request on a project (its settings included). */
function adminAssertion(projectId: ProjectId, storageBytes = 100 * 1024 * 1024): Promise<string> {
  return signAssertion(ASSERTION_KEYS.privateKey, 'storage', {
    requestId: randomBytes(8).toString('hex'),
    admin: true,
    projectId,
    clientIp: '198.51.100.4',
    settings: {
      publicSignups: true,
      requireEmailVerification: false,
      limits: { storageBytes, documents: 1000, mailMonthly: 100 },
    },
  });
}

interface Call {
  status: number;
  body: Record<string, any>;
}

async function call(
  method: string,
  path: string,
  assertion: string,
  body?: FormData | string,
  headers: Record<string, string> = {},
): Promise<Call> {
  const r = await fetch(`${h.url}${path}`, {
    method,
    headers: { 'x-gateway-assertion': assertion, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

const files = (pid: ProjectId, rest = '') => `/api/admin/projects/${pid}/files${rest}`;

async function adminUpload(pid: ProjectId, bytes: Buffer, name = 'photo.png', quota?: number, type?: string) {
  return call('POST', files(pid), await adminAssertion(pid, quota), form(bytes, name, type));
}

async function auditsOf(pid: ProjectId): Promise<EventEnvelope<'audit.recorded'>[]> {
  await h.relay.flush();
  return h.events.filter(
    (e): e is EventEnvelope<'audit.recorded'> => e.type === 'audit.recorded' && e.projectId === pid,
  );
}

describe('admin files', () => {
  it('uploads with the public upload’s answer and lists newest first with name, size, type, date and URL', async () => {
    const pid = newProjectId();
    const up: Call[] = [];
    for (const [n, name, type] of [
      [10, 'a.png', 'image/png'],
      [20, 'b.txt', 'text/plain'],
      [30, 'c.pdf', 'application/pdf'],
    ] as const) {
      up.push(await adminUpload(pid, randomBytes(n), name, undefined, type));
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const u of up) {
      expect(u.status).toBe(201);
      expect(u.body).toMatchObject({
        message: 'File uploaded successfully',
        url: `http://files.test/files/${u.body.path}`,
        provider: 'local',
      });
    }
    const list = await call('GET', files(pid), await adminAssertion(pid));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      success: true,
      message: 'Files',
      data: { cursor: '', nextCursor: null, limit: 20 },
    });
    const items = list.body.data.items as Array<Record<string, unknown>>;
    expect(items.map((f) => f.path)).toEqual(up.map((u) => String(u.body.path)).reverse());
    expect(items[0]).toEqual({
      name: String(up[2]?.body.path).split('/')[1],
      path: up[2]?.body.path,
      originalName: 'c.pdf',
      size: 30,
      contentType: 'application/pdf',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      url: up[2]?.body.url,
    });

    const first = await call('GET', files(pid, '?limit=2'), await adminAssertion(pid));
    expect(first.body.data.items.map((f: { size: number }) => f.size)).toEqual([30, 20]);
    const rest = await call(
      'GET',
      files(pid, `?limit=2&cursor=${encodeURIComponent(first.body.data.nextCursor)}`),
      await adminAssertion(pid),
    );
    expect(rest.body.data.items.map((f: { size: number }) => f.size)).toEqual([10]);
    expect(rest.body.data.nextCursor).toBeNull();
    for (const q of ['?limit=0', '?limit=x', '?cursor=bogus', '?page=2', '?limit=1&limit=2']) {
      const r = await call('GET', files(pid, q), await adminAssertion(pid));
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
    expect((await call('GET', files(pid, '?limit=500'), await adminAssertion(pid))).body.data.limit).toBe(
      100,
    );
  });

  it('holds admin uploads to the size limit and the project quota', async () => {
    const pid = newProjectId();
    const tooBig = await adminUpload(pid, randomBytes(MAX + 1), 'big.bin');
    expect([tooBig.status, tooBig.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect((await adminUpload(pid, randomBytes(600), 'a.bin', 1000)).status).toBe(201);
    const over = await adminUpload(pid, randomBytes(600), 'b.bin', 1000);
    expect([over.status, over.body.code]).toEqual([403, 'QUOTA_EXCEEDED']);
    const notMultipart = await call('POST', files(pid), await adminAssertion(pid), '{}', {
      'content-type': 'application/json',
    });
    expect([notMultipart.status, notMultipart.body.code]).toEqual([400, 'FILE_REQUIRED']);
    expect((await h.recordsOf(pid)).map((r) => r.size)).toEqual([600]);
    expect(await h.quota.used(pid)).toBe(600);
  });

  it('deletes by name, releasing the quota; a second delete, a bad name or another project’s name is refused', async () => {
    const pid = newProjectId();
    const other = newProjectId();
    const mine = await adminUpload(pid, randomBytes(100));
    const theirs = await adminUpload(other, randomBytes(50));
    const name = String(mine.body.path).split('/')[1];
    const theirName = String(theirs.body.path).split('/')[1];

    const cross = await call('DELETE', files(pid, `/${theirName}`), await adminAssertion(pid));
    expect([cross.status, cross.body.code]).toEqual([404, 'FILE_NOT_FOUND']);
    expect((await h.recordsOf(other)).map((r) => r.path)).toEqual([theirs.body.path]);
    const traversal = await call('DELETE', files(pid, '/a..b'), await adminAssertion(pid));
    expect([traversal.status, traversal.body.code]).toEqual([400, 'INVALID_PATH']);
    const encoded = await call('DELETE', files(pid, '/x%252Fy'), await adminAssertion(pid));
    expect([encoded.status, encoded.body.code]).toEqual([400, 'INVALID_PATH']);

    const del = await call('DELETE', files(pid, `/${name}`), await adminAssertion(pid));
    expect(del).toEqual({
      status: 200,
      body: { success: true, data: { path: mine.body.path }, message: 'File deleted successfully' },
    });
    expect(await h.recordsOf(pid)).toEqual([]);
    expect(await h.quota.used(pid)).toBe(0);
    const again = await call('DELETE', files(pid, `/${name}`), await adminAssertion(pid));
    expect([again.status, again.body.code]).toEqual([404, 'FILE_NOT_FOUND']);

    await h.relay.flush();
    expect(h.events.filter((e) => e.projectId === pid && e.type === 'file.deleted')).toHaveLength(1);
    const audits = await auditsOf(pid);
    expect(audits.map((e) => e.data.action)).toEqual(['file.uploaded', 'file.deleted']);
    for (const e of audits)
      expect(e.data).toMatchObject({
        actor: { type: 'platform-admin' },
        target: { type: 'file', id: mine.body.path },
        clientIp: '198.51.100.4',
        details: { size: 100 },
      });
  });

  it('audits nothing a project key does', async () => {
    const pid = newProjectId();
    const r = await fetch(`${h.url}/api/storage/upload`, {
      method: 'POST',
      headers: { 'x-gateway-assertion': await keyAssertion(pid) },
      body: form(randomBytes(10)),
    });
    expect(r.status).toBe(201);
    await h.relay.flush();
    expect(h.events.some((e) => e.projectId === pid && e.type === 'file.uploaded')).toBe(true);
    expect(await auditsOf(pid)).toEqual([]);
  });

  it('refuses a key instead of the admin, and a path project other than the asserted one', async () => {
    const pid = newProjectId();
    await adminUpload(pid, randomBytes(10));
    const withKey = await call('GET', files(pid), await keyAssertion(pid));
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
    const upKey = await call('POST', files(pid), await keyAssertion(pid), form(randomBytes(5)));
    expect([upKey.status, upKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
    const crossed = await call('GET', files(pid), await adminAssertion(newProjectId()));
    expect([crossed.status, crossed.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    const crossedDelete = await call(
      'DELETE',
      files(pid, '/whatever.png'),
      await adminAssertion(newProjectId()),
    );
    expect([crossedDelete.status, crossedDelete.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    expect(await h.recordsOf(pid)).toHaveLength(1);
  });
});
