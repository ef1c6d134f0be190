import type { ProjectId } from '@baas/common';
import { startHarness, register, type Harness } from './harness';

/**
 * A token that is sent must be valid, whether the request needs one or not (docs/api.md): with
 * the secret key, or with the publishable key on a collection whose reads need no user, another
 * project's user token or a token that is no token at all is a 401 `INVALID_TOKEN`, and nothing
 * is read or written. Before, such a token was looked at only where row-level security asked for
 * a user, and the request was served as if it had not come (found by
 * test/e2e/tenant-isolation-sweep.test.ts). Every route, through the hot routes and through
 * express alike (runs on TEST_STORE: postgres or mongodb).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness('data_tokens');
});
afterAll(async () => {
  await h?.close();
});

const PUBLIC_READ = { enabled: true, mode: 'public-read', ownerField: 'userId' };

interface Fixture {
  p: ProjectId;
  kept: string;
  trashed: string;
  /** A valid token of another project's user, and one of this project's. */
  foreign: string;
  own: string;
}

async function fixture(): Promise<Fixture> {
  const p = h.newProject();
  await register(h, p, 'open');
  await register(h, p, 'posts', { rls: PUBLIC_READ });
  const made = async (title: string) =>
    (await h.call('POST', '/api/data/open', { projectId: p, key: 'secret', body: { title } })).body
      ._id as string;
  const kept = await made('kept');
  const trashed = await made('trashed');
  expect((await h.call('DELETE', `/api/data/open/${trashed}`, { projectId: p, key: 'secret' })).status).toBe(
    200,
  );
  return {
    p,
    kept,
    trashed,
    foreign: await h.token(h.newProject(), 'mallory'),
    own: await h.token(p, 'alice'),
  };
}

/** Every document route of a project key, with the key it is sent with. */
function requests(f: Fixture): Array<[string, string, 'secret' | 'publishable', unknown?]> {
  return [
    ['GET', '/api/data/open', 'secret'],
    ['GET', `/api/data/open/${f.kept}`, 'secret'],
    ['POST', '/api/data/open', 'secret', { title: 'new' }],
    ['PUT', `/api/data/open/${f.kept}`, 'secret', { title: 'changed' }],
    ['PATCH', `/api/data/open/${f.kept}`, 'secret', { title: 'changed' }],
    ['POST', '/api/data/open/aggregate', 'secret', { pipeline: [{ $match: {} }] }],
    ['POST', `/api/data/open/${f.trashed}/restore`, 'secret'],
    ['DELETE', `/api/data/open/${f.kept}`, 'secret'],
    ['GET', '/api/data/posts', 'publishable'],
    ['POST', '/api/data/posts/aggregate', 'publishable', { pipeline: [{ $match: {} }] }],
  ];
}

async function state(f: Fixture): Promise<unknown[]> {
  const all = await h.call<{ data: { items: Array<Record<string, unknown>> } }>(
    'GET',
    '/api/data/open?include_deleted=true&sort=createdAt',
    {
      projectId: f.p,
      key: 'secret',
    },
  );
  return all.body.data.items.map((d) => [d._id, d.title, d.isDeleted]);
}

describe.each([
  ['the hot routes', false],
  ['express', true],
])('a token sent to the data service, through %s', (_, express) => {
  it.each([
    ["another project's user token", (f: Fixture) => f.foreign],
    ['a token that is not a JWT', () => 'a.b.c'],
  ])('%s is a 401 INVALID_TOKEN on every route, and nothing changes', async (_, token) => {
    const f = await fixture();
    const before = await state(f);
    const answers = [];
    for (const [method, path, key, body] of requests(f)) {
      const r = await h.call(method, path, { projectId: f.p, key, token: token(f), body, express });
      answers.push([method, path, r.status, r.body?.code]);
    }
    expect(answers).toEqual(requests(f).map(([m, p]) => [m, p, 401, 'INVALID_TOKEN']));
    expect(await state(f)).toEqual(before);
  });

  it("the project's own user token is taken where no user is needed", async () => {
    const f = await fixture();
    const answers = [];
    for (const [method, path, key, body] of requests(f)) {
      const r = await h.call(method, path, { projectId: f.p, key, token: f.own, body, express });
      answers.push([method, path, r.status < 300]);
    }
    expect(answers).toEqual(requests(f).map(([m, p]) => [m, p, true]));
  });
});
