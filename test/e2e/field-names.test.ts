import { client } from '../support/e2e';
import { dataProject, type DataProject } from './data-support';

/**
 * Issue 11 item 8, through the gateway: a key a store must never hold is refused with its path,
 * in documents and in user profiles, and nothing is written. (Before, a key such as
 * "userId\uFEFF" was stored and every later read of the collection failed, and the trash purge
 * stopped at that collection for every project.)
 */
describe('field names a store must never hold', () => {
  let p: DataProject;
  beforeAll(async () => {
    p = await dataProject();
    await p.register('notes');
  });

  it.each(['userId\uFEFF', 'a\tb', 'a\u200bb', 'a\u202eb', '$x'])(
    'refuses %j nested in a document (400 with the path), and the collection stays readable',
    async (key) => {
      const r = await p.call('POST', '/api/data/notes', { key: p.secretKey, body: { meta: { [key]: 1 } } });
      expect(r.status).toBe(400);
      expect(r.body.details[0].path).toBe(`meta.${key}`);
      expect((await p.call('GET', '/api/data/notes', { key: p.secretKey })).status).toBe(200);
    },
  );

  it('refuses the same keys in a user profile at signup and on update', async () => {
    const call = client();
    const email = `fn${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
    const bad = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email, password: 'a long enough passphrase 42', prefs: { 'theme\u200b': 'dark' } },
    });
    expect(bad.status).toBe(400);
    const ok = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email, password: 'a long enough passphrase 42', prefs: { theme: 'dark' } },
    });
    expect(ok.status).toBe(201);
    const upd = await call('PUT', '/api/userAuth/update-profile', {
      key: p.publishableKey,
      token: ok.body.accessToken,
      body: { prefs: { 'x\uFEFF': 1 } },
    });
    expect(upd.status).toBe(400);
    const me = await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: ok.body.accessToken });
    expect(me.body.user?.prefs ?? me.body.prefs).toEqual({ theme: 'dark' });
  });
});
