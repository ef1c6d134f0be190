import { SignJWT } from 'jose';
import { ADMIN_TOKEN, client, createProject } from '../support/e2e';
import { stackEnv } from '../support/stack-env';

/** Issue 2: projects and keys through the admin API, and what the gateway lets through. */
const KEY_RE = (prefix: string) => new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`);

describe('platform admin API', () => {
  const call = client();

  it('creates a project and shows its keys once', async () => {
    const r = await call('POST', '/api/admin/projects', {
      admin: true,
      body: { name: 'shop', settings: { publicSignups: false } },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: expect.stringMatching(/^[a-f0-9]{24}$/), name: 'shop' });
    expect(r.body.publishableKey).toMatch(KEY_RE('pk_live_'));
    expect(r.body.secretKey).toMatch(KEY_RE('sk_live_'));
    expect(r.body.settings).toEqual({
      publicSignups: false,
      allowedOrigins: [],
      requireEmailVerification: false,
      limits: { storageBytes: 104857600, documents: 100000, mailMonthly: 1000 },
    });
    const got = await call('GET', `/api/admin/projects/${r.body.id}`, { admin: true });
    expect(got.status).toBe(200);
    expect(got.body.keys.secret.prefix).toBe(r.body.secretKey.slice(0, 12));
    expect(got.body.keys.publishable.createdAt).toEqual(expect.any(String));
    expect(JSON.stringify(got.body)).not.toContain(r.body.secretKey);
    expect(JSON.stringify(got.body)).not.toContain(r.body.publishableKey);
  });

  it('merges settings on PATCH and validates them', async () => {
    const p = await createProject({ limits: { documents: 5 } });
    const r = await call('PATCH', `/api/admin/projects/${p.id}`, {
      admin: true,
      body: {
        name: 'renamed',
        settings: { limits: { mailMonthly: 7 }, allowedOrigins: ['https://a.example'] },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'renamed',
      settings: {
        allowedOrigins: ['https://a.example'],
        limits: { documents: 5, mailMonthly: 7, storageBytes: 104857600 },
      },
    });
    for (const bad of [
      { settings: { allowedOrigins: ['https://a.example/path'] } },
      { settings: { limits: { documents: -1 } } },
      { settings: { unknown: 1 } },
      { name: '' },
    ]) {
      const b = await call('PATCH', `/api/admin/projects/${p.id}`, { admin: true, body: bad });
      expect(b.status).toBe(400);
      expect(b.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', details: expect.any(Array) });
    }
  });

  it('answers 400 for malformed JSON or a body that does not decode, 415 for a JSON body not in UTF-8 and 404 for an unknown project', async () => {
    const bad = await call('POST', '/api/admin/projects', {
      admin: true,
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('MALFORMED_JSON');
    const latin1 = await call('POST', '/api/admin/projects', {
      admin: true,
      rawBody: '{"name":"caf\u00e9"}',
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expect([latin1.status, latin1.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // Declared compressed but not: the body cannot be decoded, which is the client's fault.
    for (const encoding of ['gzip', 'br']) {
      const undecodable = await call('POST', '/api/admin/projects', {
        admin: true,
        rawBody: '{"name":"plain"}',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expect([encoding, undecodable.status, undecodable.body.code]).toEqual([
        encoding,
        400,
        'MALFORMED_JSON',
      ]);
    }
    expect((await call('GET', '/api/admin/projects/64b7f0c2a1b2c3d4e5f60718', { admin: true })).status).toBe(
      404,
    );
    expect((await call('GET', '/api/admin/projects/not-an-id', { admin: true })).status).toBe(404);
  });

  it('bounds every JSON body at 32 levels of nesting: at the limit it reaches the route, past it 400 with the path', async () => {
    const p = await createProject();
    // `extra` is level 1, each `a` one more: the 1 sits at level 1 + levels
    const body = (levels: number) =>
      `{"path":"${p.id}/AAAAAAAAAAAAAAAAAAAAAA.png","extra":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
    const del = (levels: number) =>
      call('DELETE', '/api/storage/file', {
        key: p.secretKey,
        rawBody: body(levels),
        headers: { 'content-type': 'application/json' },
      });
    const at = await del(31);
    expect([at.status, at.body.code]).toEqual([404, 'FILE_NOT_FOUND']);
    const past = await del(32);
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ path: `extra${'.a'.repeat(32)}`, message: 'nested more than 32 levels' }],
    });
    // far past it, within the size limit: refused the same way, never a 5xx
    expect((await del(2_000)).body.code).toBe('VALIDATION_FAILED');
  });

  it('refuses the admin API without the platform admin token, or with a project key', async () => {
    const p = await createProject();
    for (const opts of [
      {},
      { headers: { authorization: 'Bearer nope' } },
      { key: p.secretKey },
      { headers: { authorization: `Bearer ${p.secretKey}` } },
    ]) {
      const r = await call('GET', `/api/admin/projects/${p.id}`, opts);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        success: false,
        code: 'ADMIN_TOKEN_REQUIRED',
        error: expect.any(String),
        message: expect.any(String),
        requestId: expect.any(String),
      });
    }
  });

  it('rotates a key: the old one is refused at once, the new one works', async () => {
    const p = await createProject();
    expect((await call('GET', '/api/data/none', { key: p.secretKey })).status).not.toBe(401);
    for (const type of ['secret', 'publishable'] as const) {
      const old = type === 'secret' ? p.secretKey : p.publishableKey;
      const r = await call('POST', `/api/admin/projects/${p.id}/keys/rotate`, {
        admin: true,
        body: { type },
      });
      expect(r.status).toBe(200);
      const fresh = type === 'secret' ? r.body.secretKey : r.body.publishableKey;
      expect(fresh).toMatch(KEY_RE(type === 'secret' ? 'sk_live_' : 'pk_live_'));
      expect(Object.keys(r.body)).toHaveLength(1);
      const refused = await call('GET', '/api/data/none', { key: old });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('INVALID_API_KEY');
      expect((await call('GET', '/api/data/none', { key: fresh })).status).not.toBe(401);
    }
    expect(
      (
        await call('POST', `/api/admin/projects/${p.id}/keys/rotate`, {
          admin: true,
          body: { type: 'master' },
        })
      ).status,
    ).toBe(400);
  });

  it('deletes a project: its keys stop working at once and it is gone', async () => {
    const p = await createProject();
    expect((await call('GET', '/api/data/none', { key: p.publishableKey })).status).not.toBe(401);
    const del = await call('DELETE', `/api/admin/projects/${p.id}`, { admin: true });
    expect(del.status).toBe(200);
    expect((await call('GET', '/api/data/none', { key: p.publishableKey })).status).toBe(401);
    expect((await call('GET', '/api/data/none', { key: p.secretKey })).status).toBe(401);
    expect((await call('GET', `/api/admin/projects/${p.id}`, { admin: true })).status).toBe(404);
    expect((await call('DELETE', `/api/admin/projects/${p.id}`, { admin: true })).status).toBe(404);
  });
});

describe('gateway', () => {
  const call = client();

  it('refuses a missing or unknown key with 401 in the error body', async () => {
    const missing = await call('GET', '/api/data/things');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      success: false,
      error: 'Missing API key',
      message: 'Missing API key',
      code: 'MISSING_API_KEY',
      requestId: expect.any(String),
    });
    for (const key of [
      'sk_live_unknownunknownunknownunknownunknownunkno',
      'pk_live_x',
      'garbage',
      'sk_test_abcdefabcdefabcdefabcdef',
    ]) {
      const r = await call('GET', '/api/data/things', { key });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('INVALID_API_KEY');
    }
  });

  it('returns x-request-id on every response, keeping a sane client value', async () => {
    const mine = await call('GET', '/api/data/things', { headers: { 'x-request-id': 'trace-me-123' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-me-123');
    expect(mine.body.requestId).toBe('trace-me-123');
    const insane = await call('GET', '/api/data/things', {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call('GET', '/nowhere')).headers.get('x-request-id')).toBeTruthy();
  });

  it('blocks /api/data/users and everything under it for every key and method', async () => {
    const p = await createProject();
    for (const key of [p.publishableKey, p.secretKey]) {
      for (const [method, path] of [
        ['GET', '/api/data/users'],
        ['POST', '/api/data/users'],
        ['GET', '/api/data/users/64b7f0c2a1b2c3d4e5f60718'],
        ['PUT', '/api/data/users/64b7f0c2a1b2c3d4e5f60718'],
        ['PATCH', '/api/data/users/64b7f0c2a1b2c3d4e5f60718'],
        ['DELETE', '/api/data/users/64b7f0c2a1b2c3d4e5f60718'],
        ['POST', '/api/data/users/aggregate'],
        ['GET', '/api/data/%75sers'],
        ['GET', '/api/data/Users?limit=1'],
      ]) {
        const r = await call(method as string, path as string, {
          key,
          body: method === 'GET' ? undefined : { pipeline: [] },
        });
        expect({ method, path, status: r.status, code: r.body?.code }).toEqual({
          method,
          path,
          status: 403,
          code: 'USERS_COLLECTION_RESERVED',
        });
      }
    }
  });

  it('enforces the origin allowlist exactly and answers CORS for allowed origins', async () => {
    const p = await createProject({ allowedOrigins: ['https://app.example.com', 'http://localhost:3000'] });
    const ok = await call('GET', '/api/data/none', {
      key: p.publishableKey,
      headers: { origin: 'https://app.example.com' },
    });
    expect(ok.status).not.toBe(403);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(ok.headers.get('vary')).toMatch(/Origin/i);
    for (const origin of [
      'https://app.example.com.evil.com',
      'https://evil-app.example.com',
      'null',
      'http://app.example.com',
      'https://APP.EXAMPLE.COM',
      'https://app.example.com:444',
      'http://localhost:3001',
    ]) {
      const r = await call('GET', '/api/data/none', { key: p.publishableKey, headers: { origin } });
      expect({ origin, status: r.status, code: r.body.code }).toEqual({
        origin,
        status: 403,
        code: 'ORIGIN_NOT_ALLOWED',
      });
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
    // A project without an allowlist does no origin check.
    const open = await createProject();
    expect(
      (
        await call('GET', '/api/data/none', {
          key: open.publishableKey,
          headers: { origin: 'https://anything.example' },
        })
      ).status,
    ).not.toBe(403);
  });

  it('answers a CORS preflight without a key', async () => {
    const r = await call('OPTIONS', '/api/data/things', {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-headers')).toMatch(/x-api-key/);
    expect(r.headers.get('vary')).toMatch(/Origin/i);
  });

  it('answers 404 in the error body for an unknown route and never exposes internal APIs', async () => {
    for (const path of [
      '/nowhere',
      '/internal/keys/resolve',
      '/internal/projects/64b7f0c2a1b2c3d4e5f60718',
    ]) {
      const r = await call('GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, code: 'ROUTE_NOT_FOUND' });
    }
  });
});

describe('gateway rate limit', () => {
  it('gives the 101st request in the window from one IP a 429 with Retry-After and RateLimit headers', async () => {
    const call = client();
    const limit = Number(stackEnv().RATE_LIMIT_GLOBAL_POINTS ?? 100);
    let last = await call('GET', '/api/data/none');
    expect(last.headers.get('ratelimit-limit')).toBe(String(limit));
    for (let i = 2; i <= limit; i++) {
      last = await call('GET', '/api/data/none');
      expect(last.status).toBe(401);
    }
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    const over = await call('GET', '/api/data/none');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another client is not affected.
    expect((await client()('GET', '/api/data/none')).status).toBe(401);
  });
});

describe('gateway assertion', () => {
  it('services refuse a direct request with forged headers or a forged assertion', async () => {
    const env = stackEnv();
    const p = await createProject();
    const forged = await new SignJWT({ rid: 'x', adm: true, pid: p.id, kt: 'secret' })
      .setProtectedHeader({ alg: 'HS256', typ: 'baas-assertion+jwt' })
      .setIssuer('baas-gateway')
      .setAudience('auth')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(new TextEncoder().encode('not-the-internal-secret-not-the-internal-secret'));
    const services = {
      auth: env.AUTH_URL ?? 'http://127.0.0.1:8081',
      data: env.DATA_URL ?? 'http://127.0.0.1:8082',
      storage: env.STORAGE_URL ?? 'http://127.0.0.1:8083',
      mail: env.MAIL_URL ?? 'http://127.0.0.1:8084',
    };
    const paths: Record<string, string> = {
      auth: `/api/admin/projects/${p.id}`,
      data: '/api/data/things',
      storage: '/api/storage/file',
      mail: '/api/mail/send',
    };
    for (const [name, url] of Object.entries(services)) {
      const attempts: Array<Record<string, string>> = [
        {
          'x-project-id': p.id,
          'x-key-type': 'secret',
          'x-api-key': p.secretKey,
          authorization: `Bearer ${ADMIN_TOKEN}`,
        },
        { 'x-gateway-assertion': forged },
        { 'x-gateway-assertion': 'not.a.jwt' },
      ];
      for (const headers of attempts) {
        const r = await fetch(`${url}${paths[name]}`, { headers });
        expect({ name, status: r.status }).toEqual({ name, status: 401 });
        const body = (await r.json()) as { code: string };
        expect(body.code).toMatch(/^GATEWAY_ASSERTION_(REQUIRED|INVALID)$/);
      }
    }
    // The same request through the gateway works.
    const via = await client()('GET', `/api/admin/projects/${p.id}`, { admin: true });
    expect(via.status).toBe(200);
  });
});
