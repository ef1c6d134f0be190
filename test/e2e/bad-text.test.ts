import { infra } from '../support/infra';
import { dataProject, type DataProject } from './data-support';

/**
 * Input no store can take, or no server can decode, is the client's mistake: a 4xx in the
 * contract's error body, never a 500. PostgreSQL cannot hold a NUL character or an unpaired
 * surrogate in text or jsonb, so there every such value, in a document, a filter or a pipeline,
 * is 400 VALIDATION_FAILED; MongoDB keeps them (whatever it answers, it is not a 5xx). A path
 * whose percent-encoding does not decode is 400 MALFORMED_URL on every store.
 */
describe('text a store cannot hold and URLs that do not decode', () => {
  let p: DataProject;

  beforeAll(async () => {
    p = await dataProject();
    await p.register('notes', { schema: { fields: [{ key: 'title', type: 'String' }] } });
  });

  const asServer = (method: string, path: string, body?: unknown) =>
    p.call(method, path, { key: p.secretKey, body });

  function expectRefusedText(r: { status: number; body: any }) {
    if (infra.store === 'postgres') {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    } else expect(r.status).toBeLessThan(500);
  }

  it.each([
    ['a NUL in a document', 'POST', '/api/data/notes', { title: 'a\u0000b' }],
    ['an unpaired surrogate in a document', 'POST', '/api/data/notes', { title: 'a\ud800b' }],
    ['a NUL in an equality filter', 'GET', '/api/data/notes?title=a%00b', undefined],
    ['a NUL in a range filter', 'GET', '/api/data/notes?title_gt=%00', undefined],
    ['a NUL in an _in filter', 'GET', '/api/data/notes?title_in=a,%00', undefined],
    ['a NUL in a _regex filter', 'GET', '/api/data/notes?title_regex=%00', undefined],
    [
      'a NUL in a pipeline',
      'POST',
      '/api/data/notes/aggregate',
      { pipeline: [{ $match: { title: '\u0000' } }] },
    ],
  ])('%s: 400 on PostgreSQL, never a 5xx', async (_, method, path, body) => {
    expectRefusedText(await asServer(method, path, body));
  });

  it('a NUL in an update: refused like an insert, and the document is unchanged', async () => {
    const doc = await p.seed('notes', { title: 'kept' });
    expectRefusedText(await asServer('PATCH', `/api/data/notes/${doc._id}`, { title: 'x\u0000' }));
    if (infra.store === 'postgres')
      expect((await asServer('GET', `/api/data/notes/${doc._id}`)).body).toMatchObject({ title: 'kept' });
  });

  it('a NUL in a signup field (the auth service maps it where the statement ran)', async () => {
    const r = await p.call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: {
        email: `nul${Date.now()}@example.com`,
        password: 'a long enough passphrase 42',
        nick: 'a\u0000b',
      },
    });
    expectRefusedText(r);
  });

  it.each([
    ['a document id', '/api/data/notes/%ff'],
    ['a collection name', '/api/data/%ff'],
    ['a truncated sequence', '/api/data/notes/%E0%A4%A'],
  ])('a path whose percent-encoding does not decode (%s): 400 MALFORMED_URL', async (_, path) => {
    const r = await asServer('GET', path);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'MALFORMED_URL', requestId: expect.any(String) });
  });

  it('a file path that does not decode: 400 MALFORMED_URL from the public file route', async () => {
    const r = await p.call('GET', `/files/${p.id}/%ff`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'MALFORMED_URL' });
  });
});
