import { BaasError, createClient, localStorageAdapter } from './index.js';
import { fakeFetch, json } from '../test/fake-fetch';

const g = globalThis as Record<string, unknown>;
const f = fakeFetch(() => json(200, {}));

function inFakeBrowser(run: () => void): void {
  g.window = {};
  g.document = {};
  try {
    run();
  } finally {
    delete g.window;
    delete g.document;
  }
}

describe('secret keys and browsers', () => {
  it('refuses an sk_live_ key when it detects a browser', () => {
    inFakeBrowser(() => {
      let error: unknown;
      try {
        createClient({ baseUrl: 'http://x', apiKey: 'sk_live_abc', fetch: f });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(BaasError);
      expect(error).toMatchObject({ code: 'SECRET_KEY_IN_BROWSER', status: 0 });
    });
  });

  it('allows it with dangerouslyAllowSecretKeyInBrowser, and allows pk_live_ keys', () => {
    inFakeBrowser(() => {
      expect(() =>
        createClient({
          baseUrl: 'http://x',
          apiKey: 'sk_live_abc',
          fetch: f,
          dangerouslyAllowSecretKeyInBrowser: true,
        }),
      ).not.toThrow();
      expect(() => createClient({ baseUrl: 'http://x', apiKey: 'pk_live_abc', fetch: f })).not.toThrow();
    });
  });

  it('allows sk_live_ keys on servers and in React Native (window without document)', () => {
    expect(() => createClient({ baseUrl: 'http://x', apiKey: 'sk_live_abc', fetch: f })).not.toThrow();
    g.window = {};
    try {
      expect(() => createClient({ baseUrl: 'http://x', apiKey: 'sk_live_abc', fetch: f })).not.toThrow();
    } finally {
      delete g.window;
    }
  });

  it('chooses cookie mode in browsers and header mode elsewhere, unless told', () => {
    inFakeBrowser(() => {
      expect(createClient({ baseUrl: 'http://x', apiKey: 'pk_live_a', fetch: f }).auth.mode).toBe('cookie');
      expect(
        createClient({ baseUrl: 'http://x', apiKey: 'pk_live_a', fetch: f, tokenMode: 'header' }).auth.mode,
      ).toBe('header');
    });
    expect(createClient({ baseUrl: 'http://x', apiKey: 'pk_live_a', fetch: f }).auth.mode).toBe('header');
  });

  it('requires baseUrl and apiKey', () => {
    expect(() => createClient({ baseUrl: '', apiKey: 'pk_live_a', fetch: f })).toThrow(/baseUrl/);
    expect(() => createClient({ baseUrl: 'http://x', apiKey: '', fetch: f })).toThrow(/apiKey/);
  });
});

describe('localStorageAdapter', () => {
  it('keeps the session in a Web Storage object', async () => {
    const data = new Map<string, string>();
    const store = {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    };
    const client = createClient({
      baseUrl: 'http://x',
      apiKey: 'pk_live_a',
      fetch: f,
      storage: localStorageAdapter(store),
    });
    await client.auth.setSession({ accessToken: 'a.b.c', refreshToken: 'rt_1' });
    expect(JSON.parse(data.get('baas.session') ?? '{}')).toMatchObject({
      accessToken: 'a.b.c',
      refreshToken: 'rt_1',
    });
    await client.auth.setSession(null);
    expect(data.size).toBe(0);
  });

  it('throws on use when there is no localStorage', () => {
    expect(() => localStorageAdapter().getItem('k')).toThrow(/no localStorage/);
  });
});

describe('storage URLs', () => {
  it('builds the public download URL of a path', () => {
    const client = createClient({ baseUrl: 'http://gw:8080/', apiKey: 'pk_live_a', fetch: f });
    expect(client.storage.downloadUrl('p1/abc def.png')).toBe('http://gw:8080/files/p1/abc%20def.png');
    const cdn = createClient({
      baseUrl: 'http://gw',
      apiKey: 'pk_live_a',
      fetch: f,
      filesBaseUrl: 'https://cdn.x/',
    });
    expect(cdn.storage.downloadUrl('p1/a.png')).toBe('https://cdn.x/p1/a.png');
  });
});

describe('default fetch', () => {
  it('uses globalThis.fetch when none is given', async () => {
    const spy = jest.spyOn(globalThis, 'fetch').mockResolvedValue(json(200, { _id: 'a' }));
    try {
      const client = createClient({ baseUrl: 'http://gw', apiKey: 'sk_live_a' });
      expect((await client.collection('t').get('a'))._id).toBe('a');
      expect(spy).toHaveBeenCalledWith('http://gw/api/data/t/a', expect.objectContaining({ method: 'GET' }));
    } finally {
      spy.mockRestore();
    }
  });
});
