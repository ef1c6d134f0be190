import type { ProjectId } from '@baas/common';
import { startHarness, register, type CallOpts, type Harness } from './harness';

/**
 * The data service answers document list, read and create without express (src/http/hot-routes.ts).
 * Each request here goes to the service as it runs and to the same wiring behind express alone;
 * the answers must be the same: status, content type, body (ids, times and request ids aside).
 */
let h: Harness;
let p: ProjectId;
let id: string;
beforeAll(async () => {
  h = await startHarness('data_hot');
  p = h.newProject();
  await register(h, p, 'things', {
    schema: {
      fields: [
        { key: 'title', type: 'String', required: true },
        { key: 'blob', type: 'String' },
      ],
    },
  });
  const made = await h.call('POST', '/api/data/things', { projectId: p, body: { title: 'first' } });
  expect(made.status).toBe(201);
  id = made.body._id;
});
afterAll(async () => {
  await h?.close();
});

const LIMIT = 256 * 1024;
/** A JSON body of exactly `bytes` bytes: { "title": "t", "blob": "xxx..." }. */
function bodyOf(bytes: number): string {
  const head = '{"title":"t","blob":"';
  return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
}

/** What must agree: the generated parts of an answer (ids, times, request ids) are masked. */
function comparable(r: { status: number; body: unknown; contentType?: string | undefined }) {
  const mask = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(mask);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [
          k,
          ['_id', 'createdAt', 'updatedAt', 'requestId'].includes(k) ? typeof x : mask(x),
        ]),
      );
    return v;
  };
  return { status: r.status, contentType: r.contentType, body: mask(r.body) };
}

async function both(method: string, path: () => string, opts: () => CallOpts) {
  const hot = await h.call(method, path(), opts());
  const plain = await h.call(method, path(), { ...opts(), express: true });
  expect(comparable(hot)).toEqual(comparable(plain));
  return hot;
}

describe('hot document routes answer as express does', () => {
  const cases: Array<[string, string, () => string, () => CallOpts, number]> = [
    ['list', 'GET', () => '/api/data/things?limit=1&sort=createdAt', () => ({ projectId: p }), 200],
    ['list, bad query', 'GET', () => '/api/data/things?limit=abc', () => ({ projectId: p }), 400],
    ['list, unknown collection', 'GET', () => '/api/data/nothing', () => ({ projectId: p }), 404],
    ['read', 'GET', () => `/api/data/things/${id}`, () => ({ projectId: p, key: 'publishable' }), 200],
    ['read, malformed id', 'GET', () => '/api/data/things/zzz', () => ({ projectId: p }), 404],
    [
      'read, unknown id',
      'GET',
      () => '/api/data/things/0123456789abcdef01234567',
      () => ({ projectId: p }),
      404,
    ],
    ['read, encoded name', 'GET', () => `/api/data/th%69ngs/${id}`, () => ({ projectId: p }), 200],
    ['create', 'POST', () => '/api/data/things', () => ({ projectId: p, body: { title: 'x' } }), 201],
    ['create, invalid', 'POST', () => '/api/data/things', () => ({ projectId: p, body: { n: 1 } }), 400],
    [
      'create, malformed JSON',
      'POST',
      () => '/api/data/things',
      () => ({ projectId: p, body: '{"title":' }),
      400,
    ],
    [
      'create, not an object',
      'POST',
      () => '/api/data/things',
      () => ({ projectId: p, body: '"title"' }),
      400,
    ],
    [
      'create, empty body',
      'POST',
      () => '/api/data/things',
      () => ({ projectId: p, rawBody: '', headers: { 'content-type': 'application/json' } }),
      400,
    ],
    [
      'create, byte order mark',
      'POST',
      () => '/api/data/things',
      () => ({
        projectId: p,
        rawBody: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"title":"bom"}')]),
        headers: { 'content-type': 'application/json; charset=UTF-8' },
      }),
      201,
    ],
    [
      'create, body at the limit',
      'POST',
      () => '/api/data/things',
      () => ({ projectId: p, body: bodyOf(LIMIT) }),
      201,
    ],
    [
      'create, body one byte past the limit',
      'POST',
      () => '/api/data/things',
      () => ({ projectId: p, body: bodyOf(LIMIT + 1) }),
      413,
    ],
    [
      'create, another charset',
      'POST',
      () => '/api/data/things',
      () => ({
        projectId: p,
        rawBody: '{"title":"x"}',
        headers: { 'content-type': 'application/json; charset=koi8-r' },
      }),
      415,
    ],
    ['no assertion', 'GET', () => '/api/data/things', () => ({ projectId: p, assertion: null }), 401],
    [
      'forged assertion',
      'POST',
      () => '/api/data/things',
      () => ({ projectId: p, assertion: 'x.y.z', body: {} }),
      401,
    ],
    ['admin assertion without a key', 'GET', () => '/api/data/things', () => ({ admin: true }), 401],
    [
      'malformed bearer',
      'GET',
      () => '/api/data/things',
      () => ({ projectId: p, headers: { authorization: 'Bearer a b' } }),
      401,
    ],
  ];
  it.each(cases)('%s', async (_label, method, path, opts, status) => {
    const r = await both(method, path, opts);
    expect(r.status).toBe(status);
  });

  it("never reaches another project's documents, on either path", async () => {
    const q = h.newProject();
    await register(h, q, 'things', {
      schema: { fields: [{ key: 'title', type: 'String', required: true }] },
    });
    const read = await both(
      'GET',
      () => `/api/data/things/${id}`,
      () => ({ projectId: q }),
    );
    expect(read.status).toBe(404);
    const list = await both(
      'GET',
      () => '/api/data/things',
      () => ({ projectId: q }),
    );
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ items: [], total: 0 });
    const made = await both(
      'POST',
      () => '/api/data/things',
      () => ({ projectId: q, body: { title: 'q' } }),
    );
    expect(made.status).toBe(201);
    const mine = await h.call('GET', `/api/data/things/${made.body._id}`, { projectId: p });
    expect(mine.status).toBe(404);
  });

  it('keeps a sane request id and answers with it', async () => {
    const r = await fetch(`${h.base}/api/data/things`, { headers: { 'x-request-id': 'my-id.1' } });
    expect(r.status).toBe(401);
    expect(r.headers.get('x-request-id')).toBe('my-id.1');
    expect(((await r.json()) as { requestId: string }).requestId).toBe('my-id.1');
  });
});
