import { startHarness, register, type Harness } from './harness';
import type { ProjectId } from '@baas/common';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('collections and documents', () => {
  let p: ProjectId;
  beforeAll(async () => {
    p = h.newProject();
    await register(h, p, 'things', {
      schema: {
        fields: [
          { key: 'title', type: 'String', required: true },
          { key: 'n', type: 'Number' },
          { key: 'code', type: 'String', unique: true },
          { key: 'when', type: 'Date' },
          { key: 'meta', type: 'Object', fields: [{ key: 'views', type: 'Number' }] },
        ],
      },
    });
  });

  it('inserts, reads, updates with dot-notation, trashes and restores a document', async () => {
    const c = await h.call('POST', '/api/data/things', {
      projectId: p,
      body: {
        title: 'a',
        n: 1,
        when: '2024-01-02T03:04:05.000Z',
        meta: { views: 1, other: 'x' },
        $where: 'x',
      },
    });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({
      title: 'a',
      n: 1,
      isDeleted: false,
      deletedAt: null,
      when: '2024-01-02T03:04:05.000Z',
    });
    expect(c.body._id).toMatch(/^[a-f0-9]{24}$/);
    expect(c.body.$where).toBeUndefined();
    const id = c.body._id;
    const g = await h.call('GET', `/api/data/things/${id}`, { projectId: p, key: 'publishable' });
    expect(g.status).toBe(200);
    expect(g.body).toEqual(c.body);
    const u = await h.call('PATCH', `/api/data/things/${id}`, { projectId: p, body: { 'meta.views': 5 } });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({
      success: true,
      message: 'Updated',
      data: { meta: { views: 5, other: 'x' }, title: 'a' },
    });
    const bad = await h.call('PUT', `/api/data/things/${id}`, {
      projectId: p,
      body: { 'meta.views': 'many' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ path: 'meta.views' });
    const d = await h.call('DELETE', `/api/data/things/${id}`, { projectId: p });
    expect(d.body).toEqual({ success: true, data: { id }, message: 'Document moved to trash' });
    expect((await h.call('GET', `/api/data/things/${id}`, { projectId: p })).status).toBe(404);
    const trashed = await h.call('GET', `/api/data/things/${id}?include_deleted=true`, { projectId: p });
    expect(trashed.body.isDeleted).toBe(true);
    expect(typeof trashed.body.deletedAt).toBe('string');
    expect(
      (await h.call('POST', `/api/data/things/${id}/restore`, { projectId: p, key: 'publishable' })).status,
    ).toBe(403);
    const r = await h.call('POST', `/api/data/things/${id}/restore`, { projectId: p });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ isDeleted: false, deletedAt: null });
  });

  it('rejects schema violations and duplicate unique values with details', async () => {
    const miss = await h.call('POST', '/api/data/things', { projectId: p, body: { n: 1 } });
    expect(miss.status).toBe(400);
    expect(miss.body.details).toEqual([{ path: 'title', message: 'is required' }]);
    const wrong = await h.call('POST', '/api/data/things', { projectId: p, body: { title: 1 } });
    expect(wrong.status).toBe(400);
    expect(
      (await h.call('POST', '/api/data/things', { projectId: p, body: { title: 'x', code: 'c1' } })).status,
    ).toBe(201);
    const dup = await h.call('POST', '/api/data/things', { projectId: p, body: { title: 'y', code: 'c1' } });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('DUPLICATE_VALUE');
    expect(dup.body.details).toEqual([{ path: 'code', message: 'must be unique' }]);
  });

  it('rejects nested operator and dotted keys, and never stores outbox fields', async () => {
    for (const body of [
      { title: 'x', a: { $gt: 1 } },
      { title: 'x', a: { 'b.c': 1 } },
      { title: 'x', _outbox: [] },
      { title: 'x', 'a.b': 1 },
    ]) {
      const r = await h.call('POST', '/api/data/things', { projectId: p, body });
      expect(r.status).toBe(400);
    }
  });

  it('answers 404 for unregistered collections and malformed ids, 403 for users', async () => {
    expect((await h.call('GET', '/api/data/nothere', { projectId: p })).status).toBe(404);
    expect((await h.call('POST', '/api/data/nothere', { projectId: p, body: {} })).status).toBe(404);
    expect((await h.call('GET', '/api/data/things/zzz', { projectId: p })).status).toBe(404);
    expect((await h.call('GET', '/api/data/users', { projectId: p })).status).toBe(403);
    const reg = await h.call('PUT', `/api/admin/projects/${p}/collections/users`, {
      admin: true,
      projectId: p,
      body: {},
    });
    expect(reg.status).toBe(400);
  });
});
