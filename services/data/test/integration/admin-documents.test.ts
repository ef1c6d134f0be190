import type { EventEnvelope, ProjectId } from '@baas/common';
import { startHarness, register, type Harness } from './harness';

/**
 * Issue 16: a project's documents under the admin API (`/api/admin/projects/:id/documents`) are
 * the public routes' handlers and use cases with the project's secret-key rights: RLS does not
 * apply, schema, unique fields, quota, trash and events do, and every write also hands one
 * `audit.recorded` event to the outbox with the change (runs on TEST_STORE: postgres or mongodb).
 */
let h: Harness;
const events: EventEnvelope[] = [];
beforeAll(async () => {
  h = await startHarness('data_admin_docs');
  const sub = h.nc.subscribe('baas.events.>');
  void (async () => {
    for await (const m of sub) events.push(m.json<EventEnvelope>());
  })();
});
afterAll(async () => {
  await h?.close();
});

const PRIVATE = { enabled: true, mode: 'private', ownerField: 'userId' };
const SCHEMA = {
  fields: [
    { key: 'title', type: 'String', required: true },
    { key: 'code', type: 'String', unique: true },
    { key: 'n', type: 'Number' },
  ],
};
const docs = (p: ProjectId, rest = '') => `/api/admin/projects/${p}/documents/notes${rest}`;
const admin = (p: ProjectId, body?: unknown) => ({
  admin: true,
  projectId: p,
  clientIp: '203.0.113.7',
  ...(body !== undefined ? { body } : {}),
});

/**
 * The events of one project once the relay has published them (and a moment for late ones);
 * for `audit.recorded`, only the document actions (registering the collection is audited too).
 * One per event id: a relay may publish an event again (at least once; JetStream drops the
 * repeat by its message id, but a plain subscriber sees both).
 */
async function eventsOf(p: ProjectId, type: string, n: number): Promise<EventEnvelope[]> {
  const end = Date.now() + 5000;
  const mine = () =>
    events.filter(
      (e) =>
        e.projectId === p &&
        e.type === type &&
        (type !== 'audit.recorded' ||
          (e as EventEnvelope<'audit.recorded'>).data.action.startsWith('document.')),
    );
  while (mine().length < n && Date.now() < end) {
    await h.wiring.relay.flush();
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200));
  return [...new Map(mine().map((e) => [e.id, e])).values()];
}

async function privateProject(documents?: number) {
  const p = h.newProject(documents);
  await register(h, p, 'notes', { schema: SCHEMA, rls: PRIVATE });
  const [alice, bob] = [await h.token(p, 'alice'), await h.token(p, 'bob')];
  for (const [token, title] of [
    [alice, 'a1'],
    [alice, 'a2'],
    [bob, 'b1'],
  ] as const) {
    const r = await h.call('POST', '/api/data/notes', {
      projectId: p,
      key: 'publishable',
      token,
      body: { title },
    });
    expect(r.status).toBe(201);
  }
  return { p, alice, bob };
}

describe('the admin reads a project’s documents with RLS bypassed', () => {
  it("lists every user's documents, with the public list's filters, sort, pages and cursor", async () => {
    const { p, alice } = await privateProject();
    const asAlice = await h.call('GET', '/api/data/notes', {
      projectId: p,
      key: 'publishable',
      token: alice,
    });
    expect(asAlice.body.data.items.map((d: { title: string }) => d.title).sort()).toEqual(['a1', 'a2']);

    const all = await h.call('GET', docs(p), admin(p));
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      success: true,
      message: 'Documents retrieved',
      data: { total: 3, page: 1 },
    });
    expect(all.body.data.items.map((d: { title: string }) => d.title)).toEqual(['b1', 'a2', 'a1']);

    const filtered = await h.call('GET', docs(p, '?userId=bob'), admin(p));
    expect(filtered.body.data.items.map((d: { title: string }) => d.title)).toEqual(['b1']);
    const sorted = await h.call('GET', docs(p, '?sort=title&limit=2'), admin(p));
    expect(sorted.body.data.items.map((d: { title: string }) => d.title)).toEqual(['a1', 'a2']);
    const next = await h.call(
      'GET',
      docs(p, `?sort=title&limit=2&cursor=${encodeURIComponent(sorted.body.data.nextCursor)}`),
      admin(p),
    );
    expect(next.body.data.items.map((d: { title: string }) => d.title)).toEqual(['b1']);
    expect(next.body.data.nextCursor).toBeNull();

    for (const q of ['?page=0', '?limit=x', '?include_deleted=maybe']) {
      const r = await h.call('GET', docs(p, q), admin(p));
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
    const badCursor = await h.call('GET', docs(p, '?cursor=nope'), admin(p));
    expect([badCursor.status, badCursor.body.success]).toEqual([400, false]);
  });

  it('refuses the users collection and unknown collections as the public path does', async () => {
    const p = h.newProject();
    const users = await h.call('GET', `/api/admin/projects/${p}/documents/users`, admin(p));
    expect([users.status, users.body.code]).toEqual([403, 'USERS_COLLECTION_RESERVED']);
    const upper = await h.call('POST', `/api/admin/projects/${p}/documents/Users`, admin(p, { a: 1 }));
    expect([upper.status, upper.body.code]).toEqual([403, 'USERS_COLLECTION_RESERVED']);
    const missing = await h.call('GET', `/api/admin/projects/${p}/documents/nothing`, admin(p));
    expect([missing.status, missing.body.code]).toEqual([404, 'COLLECTION_NOT_FOUND']);
  });
});

describe('the admin writes as the secret key would, and each write is audited', () => {
  it('inserts, edits (PUT and PATCH), trashes and restores, with events and one audit entry each', async () => {
    const { p, alice } = await privateProject();
    const created = await h.call(
      'POST',
      docs(p),
      admin(p, { title: 'by admin', userId: 'carol', code: 'X1' }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'by admin', userId: 'carol', isDeleted: false });
    const id = created.body._id as string;

    const put = await h.call('PUT', docs(p, `/${id}`), admin(p, { title: 'renamed' }));
    expect(put.body).toMatchObject({ success: true, data: { title: 'renamed', code: 'X1' } });
    const patch = await h.call('PATCH', docs(p, `/${id}`), admin(p, { n: 3 }));
    expect(patch.body.data).toMatchObject({ title: 'renamed', n: 3 });
    // A private collection's owner field stays immutable for the admin too.
    const owner = await h.call('PATCH', docs(p, `/${id}`), admin(p, { userId: 'dave' }));
    expect([owner.status, owner.body.code]).toEqual([403, 'OWNER_FIELD_IMMUTABLE']);

    const trashed = await h.call('DELETE', docs(p, `/${id}`), admin(p));
    expect(trashed.body).toMatchObject({ success: true, data: { id } });
    expect((await h.call('GET', docs(p, `/${id}`), admin(p))).status).toBe(404);
    const inTrash = await h.call('GET', docs(p, `/${id}?include_deleted=true`), admin(p));
    expect(inTrash.body).toMatchObject({ _id: id, isDeleted: true });
    const listedTrash = await h.call('GET', docs(p, '?include_deleted=true'), admin(p));
    expect(listedTrash.body.data.total).toBe(4);

    const restored = await h.call('POST', docs(p, `/${id}/restore`), admin(p));
    expect(restored.body).toMatchObject({
      success: true,
      message: 'Document restored',
      data: { isDeleted: false },
    });
    const again = await h.call('POST', docs(p, `/${id}/restore`), admin(p));
    expect(again.body.message).toBe('Document is not in the trash');

    // The owner sees the admin's document only when it is theirs: carol's is not alice's.
    const asAlice = await h.call('GET', `/api/data/notes/${id}`, {
      projectId: p,
      key: 'publishable',
      token: alice,
    });
    expect(asAlice.status).toBe(404);

    const audits = await eventsOf(p, 'audit.recorded', 5);
    expect(audits.map((e) => (e as EventEnvelope<'audit.recorded'>).data.action)).toEqual([
      'document.created',
      'document.updated',
      'document.updated',
      'document.trashed',
      'document.restored',
    ]);
    for (const e of audits as EventEnvelope<'audit.recorded'>[]) {
      expect(e.data).toMatchObject({
        actor: { type: 'platform-admin' },
        target: { type: 'document', id },
        clientIp: '203.0.113.7',
        details: { collection: 'notes' },
      });
      expect(JSON.stringify(e.data)).not.toContain('renamed');
    }
    // Its document events as ever, one per change.
    for (const [type, n] of [
      ['document.created', 1],
      ['document.updated', 2],
      ['document.trashed', 1],
      ['document.restored', 1],
    ] as const) {
      const ofDoc = (await eventsOf(p, type, 1)).filter(
        (e) => (e as EventEnvelope<'document.created'>).data.documentId === id,
      );
      expect([type, ofDoc.length]).toEqual([type, n]);
    }
    // The users' own writes through a key are not admin actions: three inserts, no audit.
    expect(audits).toHaveLength(5);
  });

  it('holds the admin to the schema, unique fields and the quota; bad bodies are 400', async () => {
    const { p } = await privateProject(5);
    const noTitle = await h.call('POST', docs(p), admin(p, { n: 1 }));
    expect([noTitle.status, noTitle.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const wrongType = await h.call('POST', docs(p), admin(p, { title: 'x', n: 'many' }));
    expect([wrongType.status, wrongType.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await h.call('POST', docs(p), admin(p, { title: 'x', code: 'U' }))).status).toBe(201);
    const dup = await h.call('POST', docs(p), admin(p, { title: 'y', code: 'U' }));
    expect([dup.status, dup.body.code]).toEqual([400, 'DUPLICATE_VALUE']);
    const array = await h.call('POST', docs(p), admin(p, [1, 2]));
    expect([array.status, array.body.code]).toEqual([400, 'INVALID_BODY']);
    const malformed = await h.call('POST', docs(p), admin(p, '{"title":'));
    expect([malformed.status, malformed.body.success]).toEqual([400, false]);
    expect((await h.call('POST', docs(p), admin(p, { title: 'fifth' }))).status).toBe(201);
    const over = await h.call('POST', docs(p), admin(p, { title: 'sixth' }));
    expect([over.status, over.body.code]).toEqual([403, 'QUOTA_EXCEEDED']);
    // Refused writes leave no audit entry.
    expect(await eventsOf(p, 'audit.recorded', 2)).toHaveLength(2);
  });
});

describe('tenancy and the admin check', () => {
  it("another project's document id is not found, for reads and every write", async () => {
    const a = await privateProject();
    const b = await privateProject();
    const bDoc = (await h.call('GET', docs(b.p), admin(b.p))).body.data.items[0]._id as string;
    for (const [method, rest, body] of [
      ['GET', `/${bDoc}?include_deleted=true`, undefined],
      ['PUT', `/${bDoc}`, { title: 'x' }],
      ['PATCH', `/${bDoc}`, { title: 'x' }],
      ['DELETE', `/${bDoc}`, undefined],
      ['POST', `/${bDoc}/restore`, undefined],
    ] as const) {
      const r = await h.call(method, docs(a.p, rest), admin(a.p, body));
      expect([method, r.status, r.body.code]).toEqual([method, 404, 'DOCUMENT_NOT_FOUND']);
    }
    const malformed = await h.call('GET', docs(a.p, '/not-an-id'), admin(a.p));
    expect([malformed.status, malformed.body.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    const untouched = await h.call('GET', docs(b.p, `/${bDoc}`), admin(b.p));
    expect(untouched.body).toMatchObject({ _id: bDoc, isDeleted: false });
    expect(untouched.body.title).not.toBe('x');
  });

  it('refuses a path project other than the asserted one, and any caller that is not the admin', async () => {
    const a = await privateProject();
    const b = h.newProject();
    const crossed = await h.call('GET', docs(a.p), admin(b));
    expect([crossed.status, crossed.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    const withKey = await h.call('GET', docs(a.p), { projectId: a.p, key: 'secret' });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
    const write = await h.call('POST', docs(a.p), { projectId: a.p, key: 'secret', body: { title: 'k' } });
    expect([write.status, write.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
    expect((await h.call('GET', docs(a.p), admin(a.p))).body.data.total).toBe(3);
  });
});
