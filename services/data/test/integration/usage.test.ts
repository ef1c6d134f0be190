import { register, startHarness, type Harness } from './harness';

/**
 * GET /api/admin/projects/:projectId/data/usage (issue 15): the project's documents, trash
 * included, against its quota, per project. Runs on TEST_STORE (postgres by default, or mongodb).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('document usage', () => {
  it("counts one project's documents, trash included, against its quota; never another project's", async () => {
    const p = h.newProject(40);
    const other = h.newProject();
    await register(h, p, 'notes');
    await register(h, other, 'notes');
    const ids: string[] = [];
    for (const title of ['a', 'b', 'c']) {
      const r = await h.call('POST', '/api/data/notes', { projectId: p, body: { title } });
      expect(r.status).toBe(201);
      ids.push(r.body._id);
    }
    expect((await h.call('POST', '/api/data/notes', { projectId: other, body: { x: 1 } })).status).toBe(201);
    expect((await h.call('DELETE', `/api/data/notes/${ids[0]}`, { projectId: p })).status).toBe(200);

    const r = await h.call('GET', `/api/admin/projects/${p}/data/usage`, { admin: true, projectId: p });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { documents: 3, limit: 40 }, message: 'Document usage' });
    const o = await h.call('GET', `/api/admin/projects/${other}/data/usage`, {
      admin: true,
      projectId: other,
    });
    expect(o.body.data).toEqual({ documents: 1, limit: 100000 });
  });

  it('is for the admin of the project the assertion names', async () => {
    const p = h.newProject();
    const other = h.newProject();
    const crossed = await h.call('GET', `/api/admin/projects/${p}/data/usage`, {
      admin: true,
      projectId: other,
    });
    expect([crossed.status, crossed.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    const tenant = await h.call('GET', `/api/admin/projects/${p}/data/usage`, { projectId: p });
    expect([tenant.status, tenant.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });
});
