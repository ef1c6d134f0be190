import { BaasError, createClient } from './index.js';
import { apiError, fakeFetch, json, jwt, tick } from '../test/fake-fetch';

const BASE = 'http://gw.test';
const future = () => Math.floor(Date.now() / 1000) + 900;
const past = () => Math.floor(Date.now() / 1000) - 60;

function tokens(n: number) {
  return { accessToken: jwt(future(), { n }), token: 'x', expiresIn: 900, refreshToken: `rt_${n}` };
}

describe('single-flight refresh', () => {
  it('N concurrent calls answered 401 INVALID_TOKEN make exactly one refresh, then all succeed', async () => {
    let refreshes = 0;
    let live = '';
    const f = fakeFetch(async (call) => {
      if (call.path === '/api/userAuth/refresh-token') {
        refreshes++;
        expect(call.init.headers['x-refresh-token']).toBe('rt_0');
        expect(call.init.headers['x-refresh-token-mode']).toBe('header');
        await tick(20);
        const t = tokens(1);
        live = t.accessToken;
        return json(200, { success: true, ...t });
      }
      await tick(5);
      if (call.init.headers.authorization !== `Bearer ${live}`) return apiError(401, 'INVALID_TOKEN');
      return json(200, { success: true, data: { items: [], nextCursor: null, limit: 20 } });
    });
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f });
    // A token the server no longer accepts, though its exp is in the future.
    await client.auth.setSession({ accessToken: jwt(future(), { n: 0 }), refreshToken: 'rt_0' });
    const N = 10;
    const results = await Promise.all(Array.from({ length: N }, () => client.collection('todos').list()));
    expect(results).toHaveLength(N);
    expect(refreshes).toBe(1);
    expect((await client.auth.getSession())?.refreshToken).toBe('rt_1');
    // each call: one refused attempt and one retry, plus the single refresh
    expect(f.calls).toHaveLength(2 * N + 1);
  });

  it('an access token known to be expired is refreshed once before N concurrent calls', async () => {
    const f = fakeFetch((call) =>
      call.path === '/api/userAuth/refresh-token'
        ? json(200, { success: true, ...tokens(1) })
        : json(200, { success: true, data: { items: [], nextCursor: null, limit: 20 } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f });
    await client.auth.setSession({ accessToken: jwt(past()), refreshToken: 'rt_0' });
    await Promise.all(Array.from({ length: 8 }, () => client.collection('todos').list()));
    expect(f.calls.filter((c) => c.path.endsWith('/refresh-token'))).toHaveLength(1);
    expect(f.calls.filter((c) => c.path === '/api/data/todos')).toHaveLength(8);
    for (const c of f.calls.filter((c) => c.path === '/api/data/todos'))
      expect(c.init.headers.authorization).toBe(`Bearer ${(await client.auth.getSession())?.accessToken}`);
  });

  it('a failed refresh (REFRESH_TOKEN_REUSED) rejects every waiting call with that error and ends the session', async () => {
    const events: string[] = [];
    const f = fakeFetch(async (call) => {
      if (call.path === '/api/userAuth/refresh-token') {
        await tick(10);
        return apiError(401, 'REFRESH_TOKEN_REUSED');
      }
      return apiError(401, 'INVALID_TOKEN');
    });
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f });
    client.auth.onAuthStateChange((e) => events.push(e));
    await client.auth.setSession({ accessToken: jwt(future()), refreshToken: 'rt_0' });
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => client.auth.me()));
    for (const s of settled) {
      expect(s.status).toBe('rejected');
      const e = (s as PromiseRejectedResult).reason as BaasError;
      expect(e).toBeInstanceOf(BaasError);
      expect(e.code).toBe('REFRESH_TOKEN_REUSED');
      expect(e.requestId).toBe('rid-REFRESH_TOKEN_REUSED');
    }
    expect(f.calls.filter((c) => c.path.endsWith('/refresh-token'))).toHaveLength(1);
    expect(await client.auth.getSession()).toBeNull();
    expect(events).toEqual(['SIGNED_OUT']);
  });

  it('does not refresh on a 401 with another code, nor without a session', async () => {
    const f = fakeFetch(() => apiError(401, 'INVALID_API_KEY'));
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f });
    await expect(client.collection('t').list()).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_API_KEY',
    });
    await client.auth.setSession({ accessToken: jwt(future()), refreshToken: 'rt_0' });
    await expect(client.collection('t').list()).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    expect(f.calls.filter((c) => c.path.endsWith('/refresh-token'))).toHaveLength(0);
  });

  it('retries a call only once after a refresh', async () => {
    const f = fakeFetch((call) =>
      call.path.endsWith('/refresh-token')
        ? json(200, { success: true, ...tokens(2) })
        : apiError(401, 'TOKEN_EXPIRED'),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f });
    await client.auth.setSession({ accessToken: jwt(future()), refreshToken: 'rt_0' });
    await expect(client.auth.me()).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    expect(f.calls.map((c) => c.path)).toEqual([
      '/api/userAuth/me',
      '/api/userAuth/refresh-token',
      '/api/userAuth/me',
    ]);
  });
});

describe('token modes', () => {
  it('header mode: login asks for the refresh token in the body and keeps it; logout sends it', async () => {
    const f = fakeFetch((call) =>
      call.path.endsWith('/login')
        ? json(200, { success: true, user: { _id: 'u1', email: 'a@b.c' }, ...tokens(1) })
        : json(200, { success: true, message: 'Logged out' }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f });
    expect(client.auth.mode).toBe('header');
    const r = await client.auth.login({ email: 'a@b.c', password: 'password-123' });
    expect(r.user._id).toBe('u1');
    expect(f.calls[0]?.init.headers['x-refresh-token-mode']).toBe('header');
    expect(f.calls[0]?.init.credentials).toBeUndefined();
    expect((await client.auth.getSession())?.refreshToken).toBe('rt_1');
    await client.auth.logout();
    expect(f.calls[1]?.init.headers['x-refresh-token']).toBe('rt_1');
    expect(await client.auth.getSession()).toBeNull();
  });

  it('cookie mode: auth routes include credentials, no refresh token is stored, refresh relies on the cookie', async () => {
    const f = fakeFetch((call) =>
      call.path.endsWith('/login')
        ? json(200, { success: true, user: { _id: 'u1' }, accessToken: jwt(future()), expiresIn: 900 })
        : call.path.endsWith('/refresh-token')
          ? json(200, { success: true, accessToken: jwt(future(), { n: 2 }), expiresIn: 900 })
          : json(200, { success: true, data: { items: [], nextCursor: null, limit: 20 } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f, tokenMode: 'cookie' });
    await client.auth.login({ email: 'a@b.c', password: 'password-123' });
    expect(f.calls[0]?.init.credentials).toBe('include');
    expect(f.calls[0]?.init.headers['x-refresh-token-mode']).toBeUndefined();
    expect((await client.auth.getSession())?.refreshToken).toBeUndefined();
    await client.auth.refresh();
    expect(f.calls[1]?.init.credentials).toBe('include');
    expect(f.calls[1]?.init.headers['x-refresh-token']).toBeUndefined();
    await client.collection('t').list();
    expect(f.calls[2]?.init.credentials).toBeUndefined(); // data calls never carry cookies
  });

  it('keeps the session in the storage adapter and reads it back in a new client', async () => {
    const items = new Map<string, string>();
    const storage = {
      getItem: async (k: string) => items.get(k) ?? null,
      setItem: async (k: string, v: string) => void items.set(k, v),
      removeItem: async (k: string) => void items.delete(k),
    };
    const f = fakeFetch(() => json(200, { success: true, user: { _id: 'u1' }, ...tokens(1) }));
    const a = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f, storage });
    await a.auth.login({ email: 'a@b.c', password: 'p' });
    const b = createClient({ baseUrl: BASE, apiKey: 'pk_live_x', fetch: f, storage });
    expect((await b.auth.getSession())?.refreshToken).toBe('rt_1');
    await b.auth.me();
    expect(f.calls[1]?.init.headers.authorization).toMatch(/^Bearer /);
  });
});
