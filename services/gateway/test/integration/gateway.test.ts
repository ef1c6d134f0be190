import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectNats,
  createLogger,
  generateAssertionKeyPair,
  createServiceApp,
  JetStreamBus,
  requireGatewayAssertion,
  verifyAssertion,
  type Closer,
  type Logger,
} from '@baas/common';
import { requireInfra, infra } from '../../../../test/support/infra';
import { until } from '../../../../test/support/until';
import { openTestStore, type TestStore } from '../../../auth/test/integration/harness';
import { loadAuthConfig } from '../../../auth/src/config';
import { wireAuth } from '../../../auth/src/wiring';
import { adminProjectRoutes } from '../../../auth/src/http/admin-projects.routes';
import { internalRoutes } from '../../../auth/src/http/internal.routes';
import { NatsCacheInvalidator } from '../../../auth/src/adapters/nats-cache-invalidator';
import { createApp } from '../../src/app';
import { BUFFERED_BODY_BYTES } from '../../src/http/upstream';
import { AuthProjectDirectory } from '../../src/adapters/auth-project-directory';
import { CachedProjectDirectory } from '../../src/domain/cached-project-directory';
import { RedisRateLimiter } from '../../src/adapters/redis-rate-limiter';
import { subscribeInvalidations } from '../../src/adapters/nats-invalidation';
import { AuthConsoleSessions } from '../../src/adapters/auth-console-sessions';
import { CachedConsoleSessions } from '../../src/domain/cached-console-sessions';

/**
 * The gateway against real Redis, NATS and a real auth service (on the store TEST_STORE names), with an echo
 * server standing in for a backend service so the forwarded request can be inspected.
 */
const logger = createLogger('test', 'silent');
/** The gateway's key pair: the gateways under test sign, the auth app and the checks verify. */
const keys = generateAssertionKeyPair();
const adminToken = randomBytes(24).toString('base64url');
const servers: http.Server[] = [];
let authStore: TestStore;
let authClosers: Closer[] = [];
let nc: NatsConnection;
let redis: Redis;
let deadRedis: Redis;
let gatewayUrl: string;
let lastEcho: { headers: http.IncomingHttpHeaders; url: string; body: string } | undefined;

async function listen(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

function gatewayAppWith(opts: {
  points?: number;
  redisClient?: Redis;
  data?: string;
  /** Where auth and storage requests go (default: the real auth app, and nowhere). */
  auth?: string;
  storage?: string;
  prefix?: string;
  nats?: boolean;
  upstreamTimeoutMs?: number;
  /** The gateway's logger (default: silent). */
  log?: Logger;
}) {
  const directory = new CachedProjectDirectory(new AuthProjectDirectory(authUrl, keys.privateKey), 60_000);
  const consoleSessions = new CachedConsoleSessions(new AuthConsoleSessions(authUrl, keys.privateKey));
  if (opts.nats !== false) subscribeInvalidations(nc, directory, consoleSessions);
  const prefix = opts.prefix ?? `rl:${randomBytes(4).toString('hex')}`;
  const client = opts.redisClient ?? redis;
  return createApp({
    logger: opts.log ?? logger,
    readiness: [],
    directory,
    consoleSessions,
    globalLimiter: new RedisRateLimiter(client, opts.points ?? 1000, 900, `${prefix}:g`),
    authLimiter: new RedisRateLimiter(client, 3, 900, `${prefix}:a`),
    adminLimiter: new RedisRateLimiter(client, opts.points ?? 1000, 900, `${prefix}:adm`),
    limits: { globalWindowSeconds: 900, authWindowSeconds: 900, adminWindowSeconds: 900 },
    trustProxy: 'loopback',
    adminToken,
    assertionPrivateKey: keys.privateKey,
    upstreams: {
      auth: opts.auth ?? authUrl,
      data: opts.data ?? echoUrl,
      storage: opts.storage ?? 'http://127.0.0.1:1',
      mail: echoUrl,
    },
    upstreamTimeoutMs: opts.upstreamTimeoutMs ?? 500,
  });
}

function gatewayWith(opts: Parameters<typeof gatewayAppWith>[0]) {
  return gatewayAppWith(opts).app;
}

let authUrl: string;
let echoUrl: string;

beforeAll(async () => {
  await requireInfra('nats', 'redis');
  nc = await connectNats(infra.natsUrl, 'gateway-test', logger);
  redis = new Redis(infra.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  await new Promise((r) => redis.once('ready', r));
  deadRedis = new Redis('redis://127.0.0.1:1', {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  deadRedis.on('error', () => undefined);
  authStore = await openTestStore('gw_auth');
  const wired = await wireAuth(
    authStore.store,
    loadAuthConfig({
      GATEWAY_ASSERTION_PUBLIC_KEY: keys.publicKeyPem,
      AUTH_SECRET: randomBytes(32).toString('base64url'),
      DATABASE_URL: authStore.url,
      MAIL_ENVELOPE_KEY: randomBytes(32).toString('hex'),
    }),
    logger,
    await JetStreamBus.create(nc, logger),
  );
  authClosers = wired.closers;
  // The auth service's project and key routes, as the auth app mounts them.
  const projectDeps = {
    projects: wired.projects,
    invalidator: new NatsCacheInvalidator(nc),
    ids: wired.projectIds,
    defaults: { storageBytes: 100, documents: 100, mailMonthly: 100 },
    members: wired.console.members,
  };
  const auth = createServiceApp({ service: 'auth', logger, readiness: [] });
  auth.app.use(requireGatewayAssertion(keys.publicKey, 'auth'));
  auth.app.use('/internal', internalRoutes(projectDeps, wired.console));
  auth.app.use('/api/admin/projects', adminProjectRoutes(projectDeps));
  authUrl = await listen(auth.finish());
  echoUrl = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      lastEcho = { headers: req.headers, url: req.url ?? '', body: Buffer.concat(chunks).toString() };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    });
  });
  gatewayUrl = await listen(gatewayWith({}));
});

afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await nc?.drain();
  redis?.disconnect();
  deadRedis?.disconnect();
  for (const c of authClosers) await c.close();
  await authStore?.close();
});

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: {
      'x-forwarded-for': headers['x-forwarded-for'] ?? '10.0.0.1',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
}

async function newProject(settings: Record<string, unknown> = {}) {
  const r = await call(
    gatewayUrl,
    'POST',
    '/api/admin/projects',
    { authorization: `Bearer ${adminToken}` },
    { name: 'p', settings },
  );
  expect(r.status).toBe(201);
  return r.body as { id: string; publishableKey: string; secretKey: string };
}

describe('gateway (real Redis, NATS, auth service)', () => {
  it('forwards a keyed request with a verified assertion and strips client-sent internal headers', async () => {
    const p = await newProject();
    const r = await call(
      gatewayUrl,
      'POST',
      '/api/data/things?x=1',
      { 'x-api-key': p.secretKey, 'x-gateway-assertion': 'forged', 'x-request-id': 'client-id-1' },
      { a: 1 },
    );
    expect(r.status).toBe(200);
    expect(lastEcho?.url).toBe('/api/data/things?x=1');
    expect(lastEcho?.body).toBe('{"a":1}');
    expect(lastEcho?.headers['x-api-key']).toBeUndefined();
    expect(lastEcho?.headers['x-request-id']).toBe('client-id-1');
    expect(lastEcho?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const claims = await verifyAssertion(
      keys.publicKey,
      'data',
      String(lastEcho?.headers['x-gateway-assertion']),
    );
    expect(claims).toMatchObject({ projectId: p.id, keyType: 'secret', admin: false });
    expect(claims).not.toHaveProperty('requestId'); // it travels in x-request-id
    expect(r.headers.get('x-request-id')).toBe('client-id-1');
  });

  it('tells auth where a console sign-in came from, and asserts no address for other public routes', async () => {
    const gw = await listen(gatewayWith({ auth: echoUrl, storage: echoUrl }));
    const assertedTo = async (audience: 'auth' | 'storage') =>
      verifyAssertion(keys.publicKey, audience, String(lastEcho?.headers['x-gateway-assertion']));
    await call(gw, 'POST', '/api/console/login', { 'x-forwarded-for': '10.0.0.7' }, { email: 'a@b.co' });
    expect(lastEcho?.url).toBe('/api/console/login');
    expect(await assertedTo('auth')).toMatchObject({ admin: false, clientIp: '10.0.0.7' });
    await call(gw, 'GET', '/files/64b7f0c2a1b2c3d4e5f60718/a.png', { 'x-forwarded-for': '10.0.0.8' });
    expect(lastEcho?.url).toBe('/files/64b7f0c2a1b2c3d4e5f60718/a.png');
    expect(await assertedTo('storage')).not.toHaveProperty('clientIp');
  });

  it("tells auth where an end user's sign-in came from (the audit log), and no other key route", async () => {
    const p = await newProject();
    const gw = await listen(gatewayWith({ auth: echoUrl }));
    const asserted = async (audience: 'auth' | 'data') =>
      verifyAssertion(keys.publicKey, audience, String(lastEcho?.headers['x-gateway-assertion']));
    await call(
      gw,
      'POST',
      '/api/userAuth/login',
      { 'x-api-key': p.publishableKey, 'x-forwarded-for': '10.0.0.9' },
      {
        email: 'a@b.co',
        password: 'x',
      },
    );
    expect(lastEcho?.url).toBe('/api/userAuth/login');
    expect(await asserted('auth')).toMatchObject({ projectId: p.id, clientIp: '10.0.0.9' });
    await call(gw, 'GET', '/api/data/t', { 'x-api-key': p.publishableKey, 'x-forwarded-for': '10.0.0.9' });
    expect(lastEcho?.url).toBe('/api/data/t');
    expect(await asserted('data')).not.toHaveProperty('clientIp');
  });

  it('signs one assertion per caller and service and reuses it, a new one after a project change', async () => {
    const p = await newProject();
    const q = await newProject();
    const seen = async (key: string, client = '10.0.0.20') => {
      const r = await call(gatewayUrl, 'GET', '/api/data/t', { 'x-api-key': key, 'x-forwarded-for': client });
      expect(r.status).toBe(200);
      return String(lastEcho?.headers['x-gateway-assertion']);
    };
    const first = await seen(p.secretKey);
    expect(await seen(p.secretKey)).toBe(first);
    // a key's assertion names no client: every client of the key shares it
    expect(await seen(p.secretKey, '10.0.0.21')).toBe(first);
    expect(await verifyAssertion(keys.publicKey, 'data', first)).not.toHaveProperty('clientIp');
    expect(await seen(q.secretKey)).not.toBe(first);
    const patched = await call(
      gatewayUrl,
      'PATCH',
      `/api/admin/projects/${p.id}`,
      { authorization: `Bearer ${adminToken}` },
      { settings: { limits: { documents: 7 } } },
    );
    expect(patched.status).toBe(200);
    const after = await seen(p.secretKey);
    expect(after).not.toBe(first);
    const claims = await verifyAssertion(keys.publicKey, 'data', after);
    expect(claims.settings?.limits.documents).toBe(7);
  });

  it('lets any origin read a keyed answer without credentials, and only allowlisted origins with them', async () => {
    const open = await newProject();
    const listed = await newProject({ allowedOrigins: ['https://app.example.com'] });
    const anyOrigin = await call(gatewayUrl, 'GET', '/api/data/t', {
      'x-api-key': open.secretKey,
      origin: 'https://evil.example',
    });
    expect(anyOrigin.status).toBe(200);
    expect(anyOrigin.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    expect(anyOrigin.headers.get('access-control-allow-credentials')).toBeNull();
    const allowed = await call(gatewayUrl, 'GET', '/api/data/t', {
      'x-api-key': listed.secretKey,
      origin: 'https://app.example.com',
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await call(gatewayUrl, 'GET', '/api/data/t', {
      'x-api-key': listed.secretKey,
      origin: 'https://evil.example',
    });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers 401 in the error body for a missing or unknown key', async () => {
    const missing = await call(gatewayUrl, 'GET', '/api/data/things');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({
      success: false,
      code: 'MISSING_API_KEY',
      requestId: expect.any(String),
    });
    const unknown = await call(gatewayUrl, 'GET', '/api/data/things', {
      'x-api-key': `sk_live_${randomBytes(32).toString('base64url')}`,
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('INVALID_API_KEY');
  });

  it('refuses a rotated key at once, through the NATS invalidation', async () => {
    const p = await newProject();
    expect((await call(gatewayUrl, 'GET', '/api/data/t', { 'x-api-key': p.secretKey })).status).toBe(200);
    // A second gateway replica that cached the key and did not see the rotation request.
    const other = await listen(gatewayWith({}));
    expect((await call(other, 'GET', '/api/data/t', { 'x-api-key': p.secretKey })).status).toBe(200);
    const rot = await call(
      gatewayUrl,
      'POST',
      `/api/admin/projects/${p.id}/keys/rotate`,
      { authorization: `Bearer ${adminToken}` },
      { type: 'secret' },
    );
    expect(rot.status).toBe(200);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 1000) {
      status = (await call(other, 'GET', '/api/data/t', { 'x-api-key': p.secretKey })).status;
    }
    expect(status).toBe(401);
    expect((await call(other, 'GET', '/api/data/t', { 'x-api-key': rot.body.secretKey })).status).toBe(200);
  });

  it('refuses a key rotated through this gateway on the very next request, even without NATS', async () => {
    const gw = await listen(gatewayWith({ nats: false }));
    const p = await newProject();
    expect((await call(gw, 'GET', '/api/data/t', { 'x-api-key': p.secretKey })).status).toBe(200);
    const rot = await call(
      gw,
      'POST',
      `/api/admin/projects/${p.id}/keys/rotate`,
      { authorization: `Bearer ${adminToken}` },
      { type: 'secret' },
    );
    expect(rot.status).toBe(200);
    expect((await call(gw, 'GET', '/api/data/t', { 'x-api-key': p.secretKey })).status).toBe(401);
    const del = await call(gw, 'DELETE', `/api/admin/projects/${p.id}`, {
      authorization: `Bearer ${adminToken}`,
    });
    expect(del.status).toBe(200);
    expect((await call(gw, 'GET', '/api/data/t', { 'x-api-key': rot.body.secretKey })).status).toBe(401);
  });

  it('limits per client IP with Redis and answers 429 with Retry-After past the limit', async () => {
    const gw = await listen(gatewayWith({ points: 5 }));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': '10.9.9.9' })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    const last = await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': '10.9.9.9' });
    expect(statuses[5]).toBe(429);
    expect(last.status).toBe(429);
    expect(last.body.code).toBe('RATE_LIMITED');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    // Another client is not affected.
    expect((await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': '10.9.9.8' })).status).toBe(401);
  });

  it("logs a refused request's client address and the limiter that refused it, and no other's", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const statuses: number[] = [];
    // the global limit (2 here) on a data route, then the auth limit (3) on the login route
    const tight = await listen(gatewayWith({ points: 2, log }));
    for (let i = 0; i < 3; i++)
      statuses.push((await call(tight, 'GET', '/api/data/t', { 'x-forwarded-for': '10.9.9.7' })).status);
    const roomy = await listen(gatewayWith({ points: 100, log }));
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await call(roomy, 'POST', '/api/userAuth/login', { 'x-forwarded-for': '10.9.9.6' })).status,
      );
    expect(statuses).toEqual([401, 401, 429, 401, 401, 401, 429]);
    const completed = lines.filter((l) => l.msg === 'request completed');
    const status = (l: Record<string, unknown>) => (l.res as { statusCode: number }).statusCode;
    expect(completed.filter((l) => status(l) === 429).map((l) => [l.clientIp, l.limiter])).toEqual([
      ['10.9.9.7', 'global'],
      ['10.9.9.6', 'auth'],
    ]);
    const answered = completed.filter((l) => status(l) === 401);
    expect(answered).toHaveLength(5);
    for (const l of answered) expect(l).not.toHaveProperty('clientIp');
  });

  it('keeps every rate-limit key in Redis with a TTL', async () => {
    const prefix = `rl:ttl${randomBytes(3).toString('hex')}`;
    const gw = await listen(gatewayWith({ points: 5, prefix }));
    await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': '10.7.7.7' });
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(await redis.ttl(k)).toBeGreaterThan(0);
  });

  it('applies the stricter auth limit on /api/userAuth only', async () => {
    const gw = await listen(gatewayWith({ points: 100 }));
    const ip = { 'x-forwarded-for': '10.8.8.8' };
    for (let i = 0; i < 3; i++) expect((await call(gw, 'POST', '/api/userAuth/login', ip)).status).toBe(401);
    expect((await call(gw, 'POST', '/api/userAuth/login', ip)).status).toBe(429);
    expect((await call(gw, 'GET', '/api/data/t', ip)).status).toBe(401);
  });

  it('falls back to an in-process limiter when Redis is down instead of failing open or failing every request', async () => {
    const gw = await listen(gatewayWith({ points: 3, redisClient: deadRedis }));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': '10.6.6.6' })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('ignores X-Forwarded-For from a non-loopback peer only when TRUST_PROXY is false', async () => {
    const directory = new CachedProjectDirectory(new AuthProjectDirectory(authUrl, keys.privateKey), 60_000);
    const app = createApp({
      logger,
      readiness: [],
      directory,
      consoleSessions: new AuthConsoleSessions(authUrl, keys.privateKey),
      globalLimiter: new RedisRateLimiter(redis, 2, 900, `rl:${randomBytes(4).toString('hex')}`),
      authLimiter: new RedisRateLimiter(redis, 2, 900, `rl:${randomBytes(4).toString('hex')}`),
      adminLimiter: new RedisRateLimiter(redis, 2, 900, `rl:${randomBytes(4).toString('hex')}`),
      limits: { globalWindowSeconds: 900, authWindowSeconds: 900, adminWindowSeconds: 900 },
      trustProxy: 'false',
      adminToken,
      assertionPrivateKey: keys.privateKey,
      upstreams: { auth: authUrl, data: echoUrl, storage: echoUrl, mail: echoUrl },
      upstreamTimeoutMs: 500,
    }).app;
    const gw = await listen(app);
    // Rotating X-Forwarded-For does not reset the limit: the socket address counts.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': `10.1.1.${i}` })).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  function limitedGateway(trustProxy: string, points: number) {
    const directory = new CachedProjectDirectory(new AuthProjectDirectory(authUrl, keys.privateKey), 60_000);
    return createApp({
      logger,
      readiness: [],
      directory,
      consoleSessions: new AuthConsoleSessions(authUrl, keys.privateKey),
      globalLimiter: new RedisRateLimiter(redis, points, 900, `rl:${randomBytes(4).toString('hex')}`),
      authLimiter: new RedisRateLimiter(redis, points, 900, `rl:${randomBytes(4).toString('hex')}`),
      adminLimiter: new RedisRateLimiter(redis, points, 900, `rl:${randomBytes(4).toString('hex')}`),
      limits: { globalWindowSeconds: 900, authWindowSeconds: 900, adminWindowSeconds: 900 },
      trustProxy,
      adminToken,
      assertionPrivateKey: keys.privateKey,
      upstreams: { auth: authUrl, data: echoUrl, storage: echoUrl, mail: echoUrl },
      upstreamTimeoutMs: 500,
    }).app;
  }

  it('behind one trusted hop (TRUST_PROXY=1), limits two clients separately and ignores what a client prepends', async () => {
    const gw = await listen(limitedGateway('1', 2));
    const as = async (xff: string) =>
      (await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': xff })).status;
    // the ingress (our loopback peer) appended each client's address
    expect([await as('198.51.100.1'), await as('198.51.100.1')]).toEqual([401, 401]);
    expect(await as('198.51.100.2')).toBe(401); // another client has its own bucket
    // a client that sends its own X-Forwarded-For gets the ingress's address for it appended
    expect(await as('192.0.2.99, 198.51.100.1')).toBe(429);
  });

  it('ignores a spoofed X-Forwarded-For from a peer outside the trusted ranges', async () => {
    const gw = await listen(limitedGateway('10.0.0.0/8, 192.168.0.0/16', 2));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(gw, 'GET', '/api/data/t', { 'x-forwarded-for': `10.1.1.${i}` })).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('refuses a TRUST_PROXY value express would not accept', () => {
    expect(() => limitedGateway('10.0.0.0/99', 2)).toThrow(/TRUST_PROXY/);
  });

  it('turns an unreachable service into 503 and a slow one into 504, in the error body', async () => {
    const p = await newProject();
    const down = await call(gatewayUrl, 'POST', '/api/storage/upload', { 'x-api-key': p.secretKey });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    const slow = await listen(() => undefined);
    const gw = await listen(gatewayWith({ data: slow }));
    const timedOut = await call(gw, 'GET', '/api/data/t', { 'x-api-key': p.secretKey });
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.code).toBe('GATEWAY_TIMEOUT');
  });

  it('requires the platform admin token on admin routes and does not forward it', async () => {
    expect((await call(gatewayUrl, 'POST', '/api/admin/projects', {}, { name: 'x' })).status).toBe(401);
    expect(
      (
        await call(
          gatewayUrl,
          'POST',
          '/api/admin/projects',
          { authorization: 'Bearer wrong' },
          { name: 'x' },
        )
      ).status,
    ).toBe(401);
    const p = await newProject();
    await call(gatewayUrl, 'GET', `/api/admin/projects/${p.id}/mail/templates`, {
      authorization: `Bearer ${adminToken}`,
    });
    expect(lastEcho?.headers.authorization).toBeUndefined();
    const claims = await verifyAssertion(
      keys.publicKey,
      'mail',
      String(lastEcho?.headers['x-gateway-assertion']),
    );
    expect(claims).toMatchObject({ admin: true, projectId: p.id });
    const missing = await call(
      gatewayUrl,
      'GET',
      '/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/mail/templates',
      { authorization: `Bearer ${adminToken}` },
    );
    expect(missing.status).toBe(404);
  });
});

/** A GET through `base` with the project's key, read as raw bytes (node:http: the socket is ours). */
function rawGet(
  base: string,
  path: string,
  key: string,
  onResponse?: (res: http.IncomingMessage, req: http.ClientRequest) => void,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${base}${path}`,
      { headers: { 'x-api-key': key, 'x-forwarded-for': '10.0.0.9' } },
      (res) => {
        onResponse?.(res, req);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

async function upstreamErrors(gw: ReturnType<typeof gatewayAppWith>, reason: string): Promise<number> {
  const text = await gw.metrics.registry.metrics();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`baas_upstream_errors_total{`) &&
        l.includes(`target="data"`) &&
        l.includes(`reason="${reason}"`),
    );
  return Number(line?.split(' ').pop() ?? NaN);
}

describe('gateway answers streamed from a service', () => {
  it('passes a large answer through to a client that reads slowly, byte for byte, and its headers as sent', async () => {
    const big = randomBytes(8 * 1024 * 1024);
    const upstream = await listen((_req, res) => {
      res.setHeader('content-type', 'application/octet-stream');
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('x-custom', 'kept');
      res.setHeader('keep-alive', 'timeout=77'); // hop-by-hop: the gateway's own connection decides
      res.end(big);
    });
    const gw = gatewayAppWith({ data: upstream });
    const base = await listen(gw.app);
    const p = await newProject();
    let pauses = 0;
    const r = await rawGet(base, '/api/data/big', p.secretKey, (res) => {
      // read in bursts: the gateway's writes fill the socket and it must wait for drain
      res.pause();
      const tick = setInterval(() => {
        pauses++;
        res.resume();
        setTimeout(() => res.pause(), 2);
      }, 20);
      res.on('end', () => clearInterval(tick));
      res.on('close', () => clearInterval(tick));
    });
    expect(r.status).toBe(200);
    expect(pauses).toBeGreaterThan(0);
    expect(r.body.equals(big)).toBe(true);
    expect(r.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(r.headers['x-custom']).toBe('kept');
    expect(r.headers['keep-alive']).not.toBe('timeout=77');
    expect(await upstreamErrors(gw, 'broken')).toBe(0);
  });

  it('passes an answer without a length (chunked) through to its end, and a HEAD answer without its body', async () => {
    const upstream = await listen((req, res) => {
      if (req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '42' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('one,');
      setTimeout(() => res.end('two'), 50);
    });
    const gw = gatewayAppWith({ data: upstream });
    const base = await listen(gw.app);
    const p = await newProject();
    const r = await rawGet(base, '/api/data/chunked', p.secretKey);
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.body.toString()).toBe('one,two');
    const head = await fetch(`${base}/api/data/chunked`, {
      method: 'HEAD',
      headers: { 'x-api-key': p.secretKey, 'x-forwarded-for': '10.0.0.9' },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('42');
    expect(await upstreamErrors(gw, 'broken')).toBe(0);
  });

  it("cuts the client off when the service's answer breaks off midway, and counts it as broken", async () => {
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const gw = gatewayAppWith({ data: upstream });
    const base = await listen(gw.app);
    const p = await newProject();
    await expect(rawGet(base, '/api/data/cut', p.secretKey)).rejects.toThrow();
    await until(async () => (await upstreamErrors(gw, 'broken')) === 1, 5000, 'the broken answer counted');
  });

  it('aborts the request to the service when the client goes away before the answer ends', async () => {
    let upstreamClosed: Promise<boolean> | undefined;
    const upstream = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
      // the rest would come much later: the client leaves before
      const later = setTimeout(() => res.end('rest'), 10_000);
      upstreamClosed = new Promise((resolve) =>
        res.on('close', () => {
          clearTimeout(later);
          resolve(!res.writableFinished);
        }),
      );
    });
    // a timeout far beyond the test's: only the client's leaving can end the request
    const gw = gatewayAppWith({ data: upstream, upstreamTimeoutMs: 60_000 });
    const base = await listen(gw.app);
    const p = await newProject();
    await expect(
      rawGet(base, '/api/data/slow', p.secretKey, (res, req) => res.once('data', () => req.destroy())),
    ).rejects.toThrow();
    await until(() => upstreamClosed !== undefined, 5000, 'the request at the service');
    // the gateway closed its request to the service instead of waiting for the rest
    expect(await upstreamClosed).toBe(true);
    expect(await upstreamErrors(gw, 'broken')).toBe(0);
  });

  /**
   * POSTs `body` in two halves 300 ms apart (chunked when `withLength` is false); resolves with when
   * the service saw the request start, relative to the second half's write, and what it got.
   */
  async function postInHalves(key: string, body: Buffer, withLength = true) {
    let seenAt = 0;
    let got: { body: Buffer; headers: http.IncomingHttpHeaders } | undefined;
    const upstream = await listen((req, res) => {
      seenAt = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got = { body: Buffer.concat(chunks), headers: req.headers };
        res.end('{}');
      });
    });
    const gw = gatewayAppWith({ data: upstream, upstreamTimeoutMs: 10_000 });
    const gwBase = await listen(gw.app);
    let secondAt = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${gwBase}/api/data/bodies`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'x-forwarded-for': '10.0.0.8',
          'content-type': 'application/octet-stream',
          ...(withLength ? { 'content-length': String(body.length) } : {}),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      setTimeout(() => {
        secondAt = Date.now();
        req.end(body.subarray(half));
      }, 300);
    });
    return { status, got, seenBeforeSecondHalf: seenAt < secondAt };
  }

  it('reads a body of known length up to the buffering limit whole before forwarding it, and streams one past it', async () => {
    const p = await newProject();
    const atLimit = randomBytes(BUFFERED_BODY_BYTES);
    const a = await postInHalves(p.secretKey, atLimit);
    expect(a.status).toBe(200);
    expect(a.got?.body.equals(atLimit)).toBe(true);
    expect(a.got?.headers['content-length']).toBe(String(BUFFERED_BODY_BYTES));
    expect(a.seenBeforeSecondHalf).toBe(false); // held until whole
    const past = randomBytes(BUFFERED_BODY_BYTES + 1);
    const b = await postInHalves(p.secretKey, past);
    expect(b.status).toBe(200);
    expect(b.got?.body.equals(past)).toBe(true);
    expect(b.got?.headers['content-length']).toBe(String(BUFFERED_BODY_BYTES + 1));
    expect(b.seenBeforeSecondHalf).toBe(true); // streamed
    const chunked = randomBytes(1000);
    const c = await postInHalves(p.secretKey, chunked, false);
    expect(c.status).toBe(200);
    expect(c.got?.body.equals(chunked)).toBe(true);
    expect(c.seenBeforeSecondHalf).toBe(true); // no length: streamed
  });

  it('forwards nothing when the client goes away before its body is in', async () => {
    let requests = 0;
    const upstream = await listen((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    const gw = gatewayAppWith({ data: upstream });
    const base = await listen(gw.app);
    const p = await newProject();
    await new Promise<void>((resolve) => {
      const req = http.request(`${base}/api/data/gone`, {
        method: 'POST',
        headers: { 'x-api-key': p.secretKey, 'x-forwarded-for': '10.0.0.7', 'content-length': '1000' },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(100));
      setTimeout(() => req.destroy(), 200);
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(requests).toBe(0);
    expect(await upstreamErrors(gw, 'reset')).toBe(0);
  });
});
