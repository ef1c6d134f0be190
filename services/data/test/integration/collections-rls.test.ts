import type { EventEnvelope, ProjectId } from '@baas/common';
import { startHarness, register, type Harness } from './harness';

/**
 * Re-registering a collection (issue 12, item 3): an omitted `rls` keeps the stored setting,
 * RLS goes off only by an explicit value, and each registration or deletion hands exactly one
 * `audit.recorded` event to the outbox with the change (runs on TEST_STORE: postgres or mongodb).
 */
let h: Harness;
const audits: EventEnvelope<'audit.recorded'>[] = [];
beforeAll(async () => {
  h = await startHarness('data_rls');
  const sub = h.nc.subscribe('baas.events.audit.recorded');
  void (async () => {
    for await (const m of sub) audits.push(m.json<EventEnvelope<'audit.recorded'>>());
  })();
});
afterAll(async () => {
  await h?.close();
});

const PRIVATE = { enabled: true, mode: 'private', ownerField: 'userId' };
const adminPath = (p: ProjectId, name: string) => `/api/admin/projects/${p}/collections/${name}`;

async function auditsOf(p: ProjectId, n: number): Promise<EventEnvelope<'audit.recorded'>[]> {
  const end = Date.now() + 5000;
  for (;;) {
    await h.wiring.relay.flush();
    const mine = audits.filter((e) => e.projectId === p);
    if (mine.length >= n || Date.now() > end) {
      // Anything late would be a duplicate: give it a moment to show.
      await new Promise((r) => setTimeout(r, 200));
      return audits.filter((e) => e.projectId === p);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('re-registering a collection keeps its RLS unless told otherwise', () => {
  it('a PUT with only a new schema keeps a private collection private: a publishable key alone lists nothing', async () => {
    const p = h.newProject();
    await register(h, p, 'notes', { rls: PRIVATE });
    const alice = await h.token(p, 'alice');
    await h.call('POST', '/api/data/notes', {
      projectId: p,
      key: 'publishable',
      token: alice,
      body: { t: 'a' },
    });

    const put = await h.call('PUT', adminPath(p, 'notes'), {
      admin: true,
      projectId: p,
      body: { schema: { fields: [{ key: 't', type: 'String' }] } },
    });
    expect(put.status).toBe(200);
    expect(put.body.rls).toEqual(PRIVATE);
    expect(put.body.schema.fields).toHaveLength(1);
    const listed = await h.call('GET', `/api/admin/projects/${p}/collections`, { admin: true, projectId: p });
    expect(listed.body[0].rls).toEqual(PRIVATE);

    const anonymous = await h.call('GET', '/api/data/notes', { projectId: p, key: 'publishable' });
    expect(anonymous.status).toBe(401);
    const bob = await h.token(p, 'bob');
    const asBob = await h.call('GET', '/api/data/notes', { projectId: p, key: 'publishable', token: bob });
    expect(asBob.status).toBe(200);
    expect(asBob.body.data.items).toEqual([]);
  });

  it('an empty PUT body keeps a public-read setting and its owner field too', async () => {
    const p = h.newProject();
    const rls = { enabled: true, mode: 'public-read', ownerField: 'ownerId' };
    await register(h, p, 'posts', { rls });
    const put = await h.call('PUT', adminPath(p, 'posts'), { admin: true, projectId: p, body: {} });
    expect(put.status).toBe(200);
    expect(put.body.rls).toEqual(rls);
  });

  it('refuses rls: null with a 400 naming the field, and changes nothing', async () => {
    const p = h.newProject();
    await register(h, p, 'notes', { rls: PRIVATE });
    const put = await h.call('PUT', adminPath(p, 'notes'), {
      admin: true,
      projectId: p,
      body: { rls: null },
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(put.body.details[0].path).toBe('rls');
    expect(put.body.details[0].message).toMatch(/enabled": false/);
    const got = await h.call('GET', adminPath(p, 'notes'), { admin: true, projectId: p });
    expect(got.body.rls).toEqual(PRIVATE);
  });

  it('turns RLS off only on an explicit { enabled: false }, recorded as collection.rls_disabled with who, from where and what changed', async () => {
    const p = h.newProject();
    await register(h, p, 'notes', { rls: PRIVATE });
    const put = await h.call('PUT', adminPath(p, 'notes'), {
      admin: true,
      projectId: p,
      clientIp: '198.51.100.23',
      body: { rls: { enabled: false } },
    });
    expect(put.status).toBe(200);
    expect(put.body.rls.enabled).toBe(false);
    const entries = await auditsOf(p, 2);
    expect(entries.map((e) => e.data.action)).toEqual(['collection.registered', 'collection.rls_disabled']);
    const off = entries[1]!;
    expect(off).toMatchObject({ type: 'audit.recorded', version: 1, projectId: p });
    expect(off.requestId).toEqual(expect.any(String));
    expect(off.data).toMatchObject({
      actor: { type: 'platform-admin' },
      target: { type: 'collection', id: 'notes' },
      clientIp: '198.51.100.23',
      details: { created: false, rlsKept: false, rls: { before: PRIVATE, after: { enabled: false } } },
    });
  });

  it('a new collection without rls starts without RLS, as before', async () => {
    const p = h.newProject();
    const put = await h.call('PUT', adminPath(p, 'open'), { admin: true, projectId: p, body: {} });
    expect(put.status).toBe(201);
    expect(put.body.rls.enabled).toBe(false);
  });
});

describe('collection admin actions are audited', () => {
  it('every registration, replacement and deletion produces exactly one entry; reads and refused writes none', async () => {
    const p = h.newProject();
    await register(h, p, 'a', { rls: PRIVATE }); // created
    await register(h, p, 'a', { schema: { fields: [{ key: 'x', type: 'Number' }] } }); // replaced, RLS kept
    await register(h, p, 'b'); // created
    await h.call('GET', `/api/admin/projects/${p}/collections`, { admin: true, projectId: p });
    const bad = await h.call('PUT', adminPath(p, 'a'), { admin: true, projectId: p, body: { rls: null } });
    expect(bad.status).toBe(400);
    const del = await h.call('DELETE', adminPath(p, 'b'), { admin: true, projectId: p });
    expect(del.status).toBe(200);
    const missing = await h.call('DELETE', adminPath(p, 'b'), { admin: true, projectId: p });
    expect(missing.status).toBe(404);

    const entries = await auditsOf(p, 4);
    expect(entries.map((e) => [e.data.action, e.data.target.id])).toEqual([
      ['collection.registered', 'a'],
      ['collection.registered', 'a'],
      ['collection.registered', 'b'],
      ['collection.deleted', 'b'],
    ]);
    expect(new Set(entries.map((e) => e.id)).size).toBe(4);
    expect(entries[0]!.data.details).toMatchObject({ created: true, rls: { before: null, after: PRIVATE } });
    expect(entries[1]!.data.details).toMatchObject({
      created: false,
      rlsKept: true,
      rls: { after: PRIVATE },
    });
  });
});
