import type { ProjectId } from '@baas/common';
import { DOCUMENT_MAX_DEPTH, FIELD_NAME_MAX_LENGTH } from '@baas/common';
import { startHarness, register, type Harness } from './harness';

let h: Harness;
let p: ProjectId;
beforeAll(async () => {
  h = await startHarness('data_names');
  p = h.newProject();
  await register(h, p, 'notes');
});
afterAll(async () => {
  await h?.close();
});

const nest = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { k: v };
  return v;
};

describe('field names a store must never hold', () => {
  it.each([
    ['userId\uFEFF', 'a BOM'],
    ['a\tb', 'a tab'],
    ['a\u200bb', 'a zero-width space'],
    ['a\u202eb', 'a bidi override'],
  ])(
    'refuses %j (%s) on insert, nested and on update, naming the path; the collection stays readable',
    async (key) => {
      const top = await h.call('POST', '/api/data/notes', { projectId: p, body: { [key]: 1 } });
      expect(top.status).toBe(400);
      expect(top.body.details).toEqual([{ path: key, message: expect.any(String) }]);
      const nested = await h.call('POST', '/api/data/notes', {
        projectId: p,
        body: { meta: [{ [key]: 1 }] },
      });
      expect(nested.status).toBe(400);
      expect(nested.body.details[0].path).toBe(`meta.0.${key}`);
      const ok = await h.call('POST', '/api/data/notes', { projectId: p, body: { fine: 1 } });
      expect(ok.status).toBe(201);
      const upd = await h.call('PATCH', `/api/data/notes/${ok.body._id}`, {
        projectId: p,
        body: { [`meta.${key}`]: 1 },
      });
      expect(upd.status).toBe(400);
      const list = await h.call('GET', '/api/data/notes', { projectId: p });
      expect(list.status).toBe(200);
    },
  );

  it('accepts a key at the length limit and refuses one past it', async () => {
    const at = await h.call('POST', '/api/data/notes', {
      projectId: p,
      body: { ['k'.repeat(FIELD_NAME_MAX_LENGTH)]: 1 },
    });
    expect(at.status).toBe(201);
    const past = await h.call('POST', '/api/data/notes', {
      projectId: p,
      body: { ['k'.repeat(FIELD_NAME_MAX_LENGTH + 1)]: 1 },
    });
    expect(past.status).toBe(400);
  });

  it('accepts nesting at the depth limit and refuses one level more', async () => {
    expect(
      (await h.call('POST', '/api/data/notes', { projectId: p, body: { d: nest(DOCUMENT_MAX_DEPTH - 1) } }))
        .status,
    ).toBe(201);
    const past = await h.call('POST', '/api/data/notes', {
      projectId: p,
      body: { d: nest(DOCUMENT_MAX_DEPTH) },
    });
    expect(past.status).toBe(400);
    expect(past.body.details[0].path).toMatch(/^d(\.k)+$/);
    // The lean create route parses its own body; its answer is the JSON body parser's.
    expect(past.body.message).toBe(`The JSON body is nested more than ${DOCUMENT_MAX_DEPTH} levels deep`);
  });

  it("refuses '.' inside a stored key and an empty key, but keeps dot paths for updates", async () => {
    expect(
      (await h.call('POST', '/api/data/notes', { projectId: p, body: { m: { 'a.b': 1 } } })).status,
    ).toBe(400);
    expect((await h.call('POST', '/api/data/notes', { projectId: p, body: { m: { '': 1 } } })).status).toBe(
      400,
    );
    const d = await h.call('POST', '/api/data/notes', { projectId: p, body: { m: { a: 1 } } });
    const u = await h.call('PATCH', `/api/data/notes/${d.body._id}`, { projectId: p, body: { 'm.b': 2 } });
    expect(u.status).toBe(200);
    expect(u.body.data.m).toEqual({ a: 1, b: 2 });
  });
});
