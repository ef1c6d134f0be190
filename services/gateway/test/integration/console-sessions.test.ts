import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  CONSOLE_INVALIDATION_SUBJECT,
  connectNats,
  consoleSessionTokenHash,
  createLogger,
  csrfTokenFor,
  generateAssertionKeyPair,
  trustedProjectId,
  verifyAssertion,
  type AssertionClaims,
  type ConsoleSessionResolution,
} from '@baas/common';
import { requireInfra, infra } from '../../../../test/support/infra';
import { until } from '../../../../test/support/until';
import { createApp } from '../../src/app';
import { CachedProjectDirectory } from '../../src/domain/cached-project-directory';
import { CachedConsoleSessions } from '../../src/domain/cached-console-sessions';
import { AuthConsoleSessions } from '../../src/adapters/auth-console-sessions';
import { RedisRateLimiter } from '../../src/adapters/redis-rate-limiter';
import { subscribeInvalidations } from '../../src/adapters/nats-invalidation';
import type { ProjectDirectory, ResolvedProject } from '../../src/ports';

/**
 * Console sessions at the gateway against real Redis (the limiters) and NATS (the invalidations),
 * with a stand-in for the auth service: it answers `/internal/console/sessions/resolve` from a
 * table the test edits (as auth's database would change) and echoes every other request with the
 * assertion it carried. The whole system is in test/e2e/console-accounts.test.ts.
 */
const logger = createLogger('test', 'silent');
const keys = generateAssertionKeyPair();
const adminToken = randomBytes(24).toString('base64url');
const P = '64b7f0c2a1b2c3d4e5f60718';
const Q = '64b7f0c2a1b2c3d4e5f60719';
const ADMIN_POINTS = 6;
const GLOBAL_POINTS = 3;

const servers: http.Server[] = [];
let nc: NatsConnection;
let redis: Redis;
let authUrl: string;
/** A gateway with roomy limits, and one with small ones (ADMIN_POINTS, GLOBAL_POINTS). */
let gatewayUrl: string;
let limitedUrl: string;
let consoleSessions: CachedConsoleSessions;
/** What auth's database says, by token hash. */
const sessions = new Map<string, ConsoleSessionResolution>();
let resolves = 0;
let lastEcho:
  { method: string; url: string; headers: http.IncomingHttpHeaders; claims: AssertionClaims } | undefined;

async function listen(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

function authStandIn(): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        // it stands in for every service: the assertion is addressed to the route's
        const audience = req.url?.includes('/collections') ? 'data' : 'auth';
        const claims = await verifyAssertion(
          keys.publicKey,
          audience,
          String(req.headers['x-gateway-assertion']),
        );
        res.setHeader('content-type', 'application/json');
        if (req.url === '/internal/console/sessions/resolve') {
          resolves++;
          const { tokenHash } = JSON.parse(Buffer.concat(chunks).toString()) as { tokenHash: string };
          const s = sessions.get(tokenHash);
          res.statusCode = s ? 200 : 401;
          res.end(JSON.stringify(s ?? { success: false, code: 'CONSOLE_SESSION_INVALID' }));
          return;
        }
        lastEcho = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, claims };
        res.end(JSON.stringify({ success: true, data: { echoed: true } }));
      })().catch(() => {
        res.statusCode = 401;
        res.end('{}');
      });
    });
  };
}

const project = (id: string): ResolvedProject => ({
  projectId: trustedProjectId(id),
  keyType: null,
  allowedOrigins: [],
  settings: {
    publicSignups: true,
    requireEmailVerification: false,
    limits: { storageBytes: 1, documents: 1, mailMonthly: 1 },
  },
});
const projects: ProjectDirectory = {
  byKeyHash: async () => null,
  byId: async (id) => (id === P || id === Q ? project(id) : null),
};

beforeAll(async () => {
  await requireInfra('nats', 'redis');
  nc = await connectNats(infra.natsUrl, 'gateway-console-test', logger);
  redis = new Redis(infra.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  await new Promise((r) => redis.once('ready', r));
  authUrl = await listen(authStandIn());
  consoleSessions = new CachedConsoleSessions(new AuthConsoleSessions(authUrl, keys.privateKey));
  gatewayUrl = await gateway(consoleSessions, 1000, 1000);
  limitedUrl = await gateway(
    new CachedConsoleSessions(new AuthConsoleSessions(authUrl, keys.privateKey)),
    ADMIN_POINTS,
    GLOBAL_POINTS,
  );
});

/** A gateway (its own Redis buckets) in front of the stand-in, following the invalidations on NATS. */
async function gateway(sessionCache: CachedConsoleSessions, adminPoints: number, globalPoints: number) {
  const directory = new CachedProjectDirectory(projects, 60_000);
  subscribeInvalidations(nc, directory, sessionCache);
  const prefix = `rl:console${randomBytes(4).toString('hex')}`;
  return listen(
    createApp({
      logger,
      readiness: [],
      directory,
      consoleSessions: sessionCache,
      globalLimiter: new RedisRateLimiter(redis, globalPoints, 900, `${prefix}:g`),
      authLimiter: new RedisRateLimiter(redis, 100, 900, `${prefix}:a`),
      adminLimiter: new RedisRateLimiter(redis, adminPoints, 900, `${prefix}:adm`),
      limits: { globalWindowSeconds: 900, authWindowSeconds: 900, adminWindowSeconds: 900 },
      trustProxy: 'loopback',
      adminToken,
      assertionPrivateKey: keys.privateKey,
      upstreams: { auth: authUrl, data: authUrl, storage: authUrl, mail: authUrl },
      upstreamTimeoutMs: 2000,
    }).app,
  );
}

afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await nc?.drain();
  redis?.disconnect();
});

let ipSeq = 0;
/** A client address of its own (per-IP buckets are not shared between tests). */
const newIp = () => `10.77.${Math.floor(Math.random() * 250)}.${++ipSeq % 250}`;

/** A live session in auth's table; its cookie and CSRF token. */
function signIn(
  memberships: ConsoleSessionResolution['memberships'],
  opts: { platformAdmin?: boolean; expiresInMs?: number } = {},
) {
  const token = randomBytes(32).toString('base64url');
  const accountId = randomBytes(12).toString('hex');
  const s: ConsoleSessionResolution = {
    sessionId: randomBytes(12).toString('hex'),
    accountId,
    email: `${accountId}@example.com`,
    platformAdmin: opts.platformAdmin ?? false,
    memberships,
    expiresAt: new Date(Date.now() + (opts.expiresInMs ?? 3_600_000)).toISOString(),
  };
  const hash = consoleSessionTokenHash(token);
  sessions.set(hash, s);
  const ip = newIp();
  return {
    token,
    hash,
    accountId,
    session: s,
    ip,
    cookie: `baas_console=${token}`,
    csrf: csrfTokenFor(token),
    revoke: () => sessions.delete(hash),
    /** A request with the cookie (and, for a change, the CSRF token), from this session's address. */
    call: (method: string, path: string, headers: Record<string, string> = {}, base = gatewayUrl) =>
      call(
        method,
        path,
        {
          cookie: `theme=dark; baas_console=${token}`,
          'x-forwarded-for': ip,
          ...(method === 'GET' || method === 'HEAD' ? {} : { 'x-csrf-token': csrfTokenFor(token) }),
          ...headers,
        },
        base,
      ),
  };
}

async function call(method: string, path: string, headers: Record<string, string> = {}, base = gatewayUrl) {
  lastEcho = undefined;
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-forwarded-for': newIp(), ...headers },
  });
  const text = await r.text();
  return {
    status: r.status,
    headers: r.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

describe('console sessions at the gateway', () => {
  it('forwards a session request as admin with the account and, on the project list only, its scope', async () => {
    const viewer = signIn([{ projectId: P, role: 'viewer' }]);
    const list = await viewer.call('GET', '/api/admin/projects');
    expect(list.status).toBe(200);
    expect(lastEcho?.claims).toMatchObject({
      admin: true,
      account: { id: viewer.accountId, email: viewer.session.email, platformAdmin: false },
      scope: [P],
    });
    // the session is for the gateway: no service gets the cookie (other cookies pass)
    expect(lastEcho?.headers.cookie).toBe('theme=dark');
    expect(lastEcho?.headers.authorization).toBeUndefined();

    const one = await viewer.call('GET', `/api/admin/projects/${P}/members`);
    expect(one.status).toBe(200);
    expect(lastEcho?.claims).toMatchObject({ admin: true, projectId: P, account: { id: viewer.accountId } });
    expect(lastEcho?.claims.scope).toBeUndefined();
  });

  it('enforces the role: another project is 404, a viewer cannot change, only platform admins go platform-wide', async () => {
    const viewer = signIn([{ projectId: P, role: 'viewer' }]);
    const expectRefused = async (method: string, path: string, status: number, code: string) => {
      const r = await viewer.call(method, path);
      expect([method, path, r.status, r.body.code]).toEqual([method, path, status, code]);
      expect(lastEcho).toBeUndefined();
    };
    await expectRefused('GET', `/api/admin/projects/${Q}`, 404, 'PROJECT_NOT_FOUND');
    await expectRefused('GET', `/api/admin/projects/${Q}/collections`, 404, 'PROJECT_NOT_FOUND');
    await expectRefused('PATCH', `/api/admin/projects/${P}`, 403, 'INSUFFICIENT_ROLE');
    await expectRefused('PUT', `/api/admin/projects/${P}/collections/posts`, 403, 'INSUFFICIENT_ROLE');
    await expectRefused('POST', '/api/admin/projects', 403, 'PLATFORM_ADMIN_REQUIRED');
    await expectRefused('GET', '/api/admin/audit', 403, 'PLATFORM_ADMIN_REQUIRED');
    await expectRefused('GET', '/api/admin/console/accounts', 403, 'PLATFORM_ADMIN_REQUIRED');

    const developer = signIn([{ projectId: P, role: 'developer' }]);
    expect((await developer.call('PUT', `/api/admin/projects/${P}/collections/posts`)).status).toBe(200);
    expect((await developer.call('POST', `/api/admin/projects/${P}/keys/rotate`)).body.code).toBe(
      'INSUFFICIENT_ROLE',
    );
    const owner = signIn([{ projectId: P, role: 'owner' }]);
    expect((await owner.call('POST', `/api/admin/projects/${P}/keys/rotate`)).status).toBe(200);
    expect(lastEcho?.url).toBe(`/api/admin/projects/${P}/keys/rotate`);
  });

  it('lets a platform admin account do what the token does, without a scope', async () => {
    const admin = signIn([], { platformAdmin: true });
    expect((await admin.call('POST', '/api/admin/projects')).status).toBe(200);
    expect(lastEcho?.claims).toMatchObject({
      admin: true,
      account: { id: admin.accountId, platformAdmin: true },
    });
    expect((await admin.call('GET', '/api/admin/projects')).status).toBe(200);
    expect(lastEcho?.claims.scope).toBeUndefined();
    expect((await admin.call('GET', `/api/admin/projects/${Q}/members`)).status).toBe(200);
  });

  it('needs x-csrf-token on a change made with the cookie, and refuses another origin', async () => {
    const owner = signIn([{ projectId: P, role: 'owner' }]);
    const patch = (headers: Record<string, string>) =>
      owner.call('PATCH', `/api/admin/projects/${P}`, headers);
    const attempts: Array<Record<string, string>> = [
      { 'x-csrf-token': '' },
      { 'x-csrf-token': 'nope' },
      { 'x-csrf-token': owner.token },
      { 'x-csrf-token': csrfTokenFor(randomBytes(32).toString('base64url')) },
      { origin: 'http://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of attempts) {
      const r = await patch(headers);
      expect([headers, r.status, r.body.code]).toEqual([headers, 403, 'CSRF_TOKEN_INVALID']);
      expect(lastEcho).toBeUndefined();
    }
    // a read from another site's page is refused too; the gateway's own origin is fine
    expect((await owner.call('GET', '/api/admin/projects', { origin: 'http://evil.example' })).status).toBe(
      403,
    );
    const own = new URL(gatewayUrl).origin;
    expect((await patch({ origin: own })).status).toBe(200);
    // the token needs no CSRF token: it is not sent by a browser on its own
    const withToken = await call('PATCH', `/api/admin/projects/${P}`, {
      authorization: `Bearer ${adminToken}`,
    });
    expect(withToken.status).toBe(200);
  });

  it('answers 401 ADMIN_TOKEN_REQUIRED without a live session; the Authorization header decides when sent', async () => {
    for (const cookie of [
      '',
      'baas_console=',
      `baas_console=${randomBytes(32).toString('base64url')}`,
      'baas_console=not a token',
    ]) {
      const r = await call('GET', '/api/admin/projects', { cookie });
      expect([cookie, r.status, r.body.code]).toEqual([cookie, 401, 'ADMIN_TOKEN_REQUIRED']);
    }
    const expired = signIn([{ projectId: P, role: 'owner' }], { expiresInMs: -1000 });
    expect((await expired.call('GET', '/api/admin/projects')).status).toBe(401);

    const viewer = signIn([{ projectId: P, role: 'viewer' }]);
    // the token wins over a cookie: the platform admin, not the account
    expect(
      (await viewer.call('GET', '/api/admin/projects', { authorization: `Bearer ${adminToken}` })).status,
    ).toBe(200);
    expect(lastEcho?.claims.account).toBeUndefined();
    expect(lastEcho?.claims.scope).toBeUndefined();
    // a wrong token is no caller, whatever the cookie
    expect((await viewer.call('GET', '/api/admin/projects', { authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
  });

  it('drops a session at once when auth announces a change to its account on NATS', async () => {
    const viewer = signIn([{ projectId: P, role: 'viewer' }]);
    const other = signIn([{ projectId: P, role: 'viewer' }]);
    expect((await viewer.call('GET', `/api/admin/projects/${P}`)).status).toBe(200);
    expect((await other.call('GET', `/api/admin/projects/${P}`)).status).toBe(200);
    // revoked in auth's database: the gateway still has it in memory (for up to 30 s)...
    viewer.revoke();
    other.revoke();
    expect((await viewer.call('GET', `/api/admin/projects/${P}`)).status).toBe(200);
    // ...until auth announces it
    nc.publish(CONSOLE_INVALIDATION_SUBJECT, JSON.stringify({ accountId: viewer.accountId }));
    await until(() => !consoleSessions.has(viewer.hash), 5000, 'the announcement');
    expect((await viewer.call('GET', `/api/admin/projects/${P}`)).status).toBe(401);
    // another account's session was not touched
    expect((await other.call('GET', `/api/admin/projects/${P}`)).status).toBe(200);
  });

  it('takes a role change from the announcement at once', async () => {
    const s = signIn([{ projectId: P, role: 'viewer' }]);
    expect((await s.call('PUT', `/api/admin/projects/${P}/collections/posts`)).status).toBe(403);
    s.session.memberships = [{ projectId: P, role: 'developer' }];
    nc.publish(CONSOLE_INVALIDATION_SUBJECT, JSON.stringify({ accountId: s.accountId }));
    await until(() => !consoleSessions.has(s.hash), 5000, 'the announcement');
    expect((await s.call('PUT', `/api/admin/projects/${P}/collections/posts`)).status).toBe(200);
  });

  it('forgets the session a sign-out went through, without waiting for NATS', async () => {
    const s = signIn([{ projectId: P, role: 'viewer' }]);
    expect((await s.call('GET', '/api/admin/projects')).status).toBe(200);
    s.revoke(); // what auth does for POST /api/console/logout (the stand-in announces nothing)
    const out = await s.call('POST', '/api/console/logout');
    expect(out.status).toBe(200);
    // the console's own routes get the cookie
    expect(lastEcho?.headers.cookie).toContain(`baas_console=${s.token}`);
    expect((await s.call('GET', '/api/admin/projects')).status).toBe(401);
  });

  it('forgets the sessions of an account whose role changed through this gateway, without waiting for NATS', async () => {
    const owner = signIn([{ projectId: P, role: 'owner' }]);
    const member = signIn([{ projectId: P, role: 'developer' }]);
    expect((await member.call('PUT', `/api/admin/projects/${P}/collections/posts`)).status).toBe(200);
    member.session.memberships = [{ projectId: P, role: 'viewer' }];
    expect((await owner.call('PATCH', `/api/admin/projects/${P}/members/${member.accountId}`)).status).toBe(
      200,
    );
    expect((await member.call('PUT', `/api/admin/projects/${P}/collections/posts`)).body.code).toBe(
      'INSUFFICIENT_ROLE',
    );
  });
});

describe('the admin rate limit', () => {
  it('counts a session per account, not per address: past the per-IP limit, up to its own, then 429', async () => {
    const s = signIn([{ projectId: P, role: 'viewer' }]);
    const statuses: number[] = [];
    for (let i = 0; i < ADMIN_POINTS; i++)
      statuses.push((await s.call('GET', '/api/admin/projects', {}, limitedUrl)).status);
    expect(statuses).toEqual(Array(ADMIN_POINTS).fill(200));
    const over = await s.call('GET', '/api/admin/projects', {}, limitedUrl);
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('RATE_LIMITED');
    expect(over.headers.get('ratelimit-limit')).toBe(String(ADMIN_POINTS));
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // the same account from another address: the same bucket
    expect(
      (await s.call('GET', '/api/admin/projects', { 'x-forwarded-for': newIp() }, limitedUrl)).status,
    ).toBe(429);
    // another account from the same address: its own bucket, the per-IP one untouched
    const other = signIn([{ projectId: P, role: 'viewer' }]);
    const fromSameIp = await other.call(
      'GET',
      '/api/admin/projects',
      { 'x-forwarded-for': s.ip },
      limitedUrl,
    );
    expect(fromSameIp.status).toBe(200);
    expect(fromSameIp.headers.get('ratelimit-limit')).toBe(String(ADMIN_POINTS));
    expect(
      (await call('GET', '/api/data/x', { 'x-forwarded-for': s.ip }, limitedUrl)).headers.get(
        'ratelimit-remaining',
      ),
    ).toBe(String(GLOBAL_POINTS - 1));
  });

  it('keeps admin attempts without a live credential on the per-IP limit, and stops looking up cookies from an address past it', async () => {
    const ip = newIp();
    const attempt = (cookie: string) =>
      call('GET', '/api/admin/projects', { 'x-forwarded-for': ip, cookie }, limitedUrl);
    const made = () => `baas_console=${randomBytes(32).toString('base64url')}`;
    const statuses: number[] = [];
    for (let i = 0; i < GLOBAL_POINTS; i++) statuses.push((await attempt(made())).status);
    expect(statuses).toEqual(Array(GLOBAL_POINTS).fill(401));
    const over = await attempt(made());
    expect(over.status).toBe(429);
    expect(over.headers.get('ratelimit-limit')).toBe(String(GLOBAL_POINTS));
    // more made-up cookies from there cost auth nothing now
    const before = resolves;
    for (let i = 0; i < 5; i++) expect((await attempt(made())).status).toBe(429);
    expect(resolves).toBe(before);
    // a session already in memory still works from that address (it is limited per account)
    const s = signIn([{ projectId: P, role: 'viewer' }]);
    expect((await s.call('GET', '/api/admin/projects', {}, limitedUrl)).status).toBe(200);
    expect((await s.call('GET', '/api/admin/projects', { 'x-forwarded-for': ip }, limitedUrl)).status).toBe(
      200,
    );
  });

  it('counts the platform admin token in a bucket of its own', async () => {
    const r = await call('GET', '/api/admin/projects', { authorization: `Bearer ${adminToken}` }, limitedUrl);
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-limit')).toBe(String(ADMIN_POINTS));
  });
});
