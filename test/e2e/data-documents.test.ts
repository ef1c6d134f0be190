import { dataProject, type DataProject } from './data-support';

describe('data: collections admin API and documents', () => {
  let p: DataProject;
  beforeAll(async () => {
    p = await dataProject();
  });

  it('registers a collection (201), replaces it (200), lists and deletes it', async () => {
    const def = {
      schema: { fields: [{ key: 'title', type: 'String', required: true }] },
      rls: { enabled: true, mode: 'public-read', ownerField: 'ownerId' },
    };
    const c = await p.call('PUT', `/api/admin/projects/${p.id}/collections/tmp`, { admin: true, body: def });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: 'tmp', rls: def.rls, schema: def.schema });
    expect(
      (await p.call('PUT', `/api/admin/projects/${p.id}/collections/tmp`, { admin: true, body: def })).status,
    ).toBe(200);
    const list = await p.call('GET', `/api/admin/projects/${p.id}/collections`, { admin: true });
    expect(list.body.map((x: { name: string }) => x.name)).toContain('tmp');
    await p.seed('tmp', { title: 'x' });
    expect(
      (await p.call('DELETE', `/api/admin/projects/${p.id}/collections/tmp`, { admin: true })).status,
    ).toBe(200);
    expect((await p.call('GET', '/api/data/tmp', { key: p.secretKey })).status).toBe(404);
    expect((await p.call('GET', `/api/admin/projects/${p.id}/collections/tmp`, { admin: true })).status).toBe(
      404,
    );
  });

  it('refuses to register users, bad names and bad schemas (400), and needs the admin token (401)', async () => {
    for (const name of ['users', 'Users', 'system.x', 'a.b', '$x'])
      expect(
        (
          await p.call('PUT', `/api/admin/projects/${p.id}/collections/${encodeURIComponent(name)}`, {
            admin: true,
            body: {},
          })
        ).status,
      ).toBe(400);
    expect(
      (
        await p.call('PUT', `/api/admin/projects/${p.id}/collections/ok`, {
          admin: true,
          body: { schema: { fields: [{ key: 'a', type: 'Wrong' }] } },
        })
      ).status,
    ).toBe(400);
    expect(
      (await p.call('PUT', `/api/admin/projects/${p.id}/collections/ok`, { key: p.secretKey, body: {} }))
        .status,
    ).toBe(401);
  });

  it('answers 404 for data of an unregistered collection and 403 for users', async () => {
    expect(
      (await p.call('POST', '/api/data/unregistered', { key: p.secretKey, body: { a: 1 } })).status,
    ).toBe(404);
    expect((await p.call('GET', '/api/data/unregistered', { key: p.secretKey })).status).toBe(404);
    const users = await p.call('GET', '/api/data/users', { key: p.secretKey });
    expect(users.status).toBe(403);
    expect(users.body.code).toBe('USERS_COLLECTION_RESERVED');
  });

  it('stores arbitrary JSON without a schema and returns the document with its system fields', async () => {
    await p.register('free');
    const r = await p.call('POST', '/api/data/free', {
      key: p.secretKey,
      body: { a: { b: [1, { c: true }] }, s: 'x', $evil: 1, isDeleted: true, _id: 'mine' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ a: { b: [1, { c: true }] }, s: 'x', isDeleted: false, deletedAt: null });
    expect(r.body._id).toMatch(/^[a-f0-9]{24}$/);
    expect(r.body.$evil).toBeUndefined();
    expect(new Date(r.body.createdAt).toISOString()).toBe(r.body.createdAt);
    expect(r.body.updatedAt).toBe(r.body.createdAt);
    const g = await p.call('GET', `/api/data/free/${r.body._id}`, { key: p.publishableKey });
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
  });

  it('validates inserts and updates against the schema (required, type, unique)', async () => {
    await p.register('typed', {
      schema: {
        fields: [
          { key: 'title', type: 'String', required: true },
          { key: 'n', type: 'Number' },
          { key: 'sku', type: 'String', unique: true },
          { key: 'at', type: 'Date' },
        ],
      },
    });
    const missing = await p.call('POST', '/api/data/typed', { key: p.secretKey, body: { n: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ path: 'title', message: 'is required' }]);
    expect(
      (await p.call('POST', '/api/data/typed', { key: p.secretKey, body: { title: 'x', n: 'one' } })).status,
    ).toBe(400);
    expect(
      (await p.call('POST', '/api/data/typed', { key: p.secretKey, body: { title: 'x', at: 'not a date' } }))
        .status,
    ).toBe(400);
    const a = await p.seed('typed', { title: 'a', sku: 'S1', at: '2024-05-01T00:00:00Z' });
    expect(a.at).toBe('2024-05-01T00:00:00.000Z');
    const dup = await p.call('POST', '/api/data/typed', {
      key: p.secretKey,
      body: { title: 'b', sku: 'S1' },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('DUPLICATE_VALUE');
    const b = await p.seed('typed', { title: 'b', sku: 'S2' });
    const dupUpdate = await p.call('PATCH', `/api/data/typed/${b._id}`, {
      key: p.secretKey,
      body: { sku: 'S1' },
    });
    expect(dupUpdate.status).toBe(400);
    expect(dupUpdate.body.code).toBe('DUPLICATE_VALUE');
    expect(
      (await p.call('PUT', `/api/data/typed/${b._id}`, { key: p.secretKey, body: { n: 'x' } })).status,
    ).toBe(400);
    expect(
      (await p.call('PUT', `/api/data/typed/${b._id}`, { key: p.secretKey, body: { title: null } })).status,
    ).toBe(400);
    const stored = await p.call('GET', `/api/data/typed/${b._id}`, { key: p.secretKey });
    expect(stored.body).toMatchObject({ title: 'b', sku: 'S2' });
  });

  it('merges PUT and PATCH bodies, with dot-notation into nested fields', async () => {
    const d = await p.seed('free', { title: 't', meta: { views: 1, tags: ['a'] }, keep: 1 });
    const put = await p.call('PUT', `/api/data/free/${d._id}`, {
      key: p.secretKey,
      body: { title: 'u', 'meta.views': 2 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      success: true,
      message: 'Updated',
      data: { title: 'u', meta: { views: 2, tags: ['a'] }, keep: 1 },
    });
    const patch = await p.call('PATCH', `/api/data/free/${d._id}`, {
      key: p.secretKey,
      body: { 'meta.deep.x': true },
    });
    expect(patch.body.data.meta).toEqual({ views: 2, tags: ['a'], deep: { x: true } });
    expect(patch.body.data.createdAt).toBe(d.createdAt);
    expect(patch.body.data.updatedAt >= d.updatedAt).toBe(true);
    const stored = await p.call('GET', `/api/data/free/${d._id}`, { key: p.secretKey });
    expect(stored.body).toEqual(patch.body.data);
    expect(
      (await p.call('PATCH', `/api/data/free/${'0'.repeat(24)}`, { key: p.secretKey, body: { a: 1 } }))
        .status,
    ).toBe(404);
  });

  it('moves a document to the trash, hides it, shows it with include_deleted, and restores it with the secret key', async () => {
    const d = await p.seed('free', { trash: 'me' });
    const del = await p.call('DELETE', `/api/data/free/${d._id}`, { key: p.secretKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, data: { id: d._id }, message: 'Document moved to trash' });
    expect((await p.call('GET', `/api/data/free/${d._id}`, { key: p.secretKey })).status).toBe(404);
    const list = await p.call('GET', '/api/data/free?trash=me', { key: p.secretKey });
    expect(list.body.data.total).toBe(0);
    const withDeleted = await p.call('GET', '/api/data/free?trash=me&include_deleted=true', {
      key: p.secretKey,
    });
    expect(withDeleted.body.data.items[0]).toMatchObject({ _id: d._id, isDeleted: true });
    expect(typeof withDeleted.body.data.items[0].deletedAt).toBe('string');
    expect(
      (await p.call('GET', `/api/data/free/${d._id}?include_deleted=true`, { key: p.secretKey })).body
        .isDeleted,
    ).toBe(true);
    expect(
      (await p.call('PATCH', `/api/data/free/${d._id}`, { key: p.secretKey, body: { a: 1 } })).status,
    ).toBe(404);
    expect((await p.call('DELETE', `/api/data/free/${d._id}`, { key: p.secretKey })).status).toBe(404);
    expect((await p.call('POST', `/api/data/free/${d._id}/restore`, { key: p.publishableKey })).status).toBe(
      403,
    );
    const restored = await p.call('POST', `/api/data/free/${d._id}/restore`, { key: p.secretKey });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({
      success: true,
      data: { _id: d._id, isDeleted: false, deletedAt: null, trash: 'me' },
    });
    expect((await p.call('GET', `/api/data/free/${d._id}`, { key: p.secretKey })).status).toBe(200);
    expect(
      (await p.call('POST', `/api/data/free/${'a'.repeat(24)}/restore`, { key: p.secretKey })).status,
    ).toBe(404);
  });

  it('answers 404 for a malformed document id and 400 for a non-object body', async () => {
    expect((await p.call('GET', '/api/data/free/not-an-id', { key: p.secretKey })).status).toBe(404);
    expect((await p.call('POST', '/api/data/free', { key: p.secretKey, body: [1, 2] })).status).toBe(400);
    expect(
      (
        await p.call('POST', '/api/data/free', {
          key: p.secretKey,
          rawBody: '{bad json',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
  });
});
