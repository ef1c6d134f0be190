import { csrfTokenFor } from '@baas/common';
import {
  BASE_URL,
  MAIL_API_URL,
  client,
  createProject,
  loopbackFor,
  randomIp,
  send,
  type CallOptions,
  type CallResult,
  type TestProject,
} from '../support/e2e';
import { stackEnv } from '../support/stack-env';
import { anotherGateway, type ServiceProcess } from '../support/service-process';
import { until } from '../support/until';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';

/**
 * Issue 16, console accounts through the gateway as a client sees them: a platform admin (the
 * token) creates accounts and grants them roles on project P by invitation; each signs in with a
 * cookie session and reaches P only, as far as its role allows, with CSRF and Origin checks on
 * the cookie; sign-out and role changes take effect at once (on this gateway and, through NATS,
 * on another); audit entries name the account; admin requests count per account, not per address.
 * The browser side is test/e2e/console-members.test.ts.
 */
const mailpit = new Mailpit(MAIL_API_URL);
const admin = client();
const PASSWORD = 'console-accounts-e2e';
const env = stackEnv();

let p: TestProject;
let q: TestProject;

interface Account {
  id: string;
  email: string;
}

/** A console account made by the platform admin (the token). */
async function newAccount(tag: string, platformAdmin = false): Promise<Account> {
  const email = uniqueAddress(`console-${tag}`);
  const r = await admin('POST', '/api/admin/console/accounts', {
    admin: true,
    body: { email, password: PASSWORD, platformAdmin },
  });
  expect([r.status, r.body.data?.email]).toEqual([201, email]);
  return { id: r.body.data.id as string, email };
}

/** Invites the account to a project with a role (token) and accepts with the mailed link. */
async function grant(account: Account, project: TestProject, role: string): Promise<void> {
  const invited = await admin('POST', `/api/admin/projects/${project.id}/members`, {
    admin: true,
    body: { email: account.email, role },
  });
  expect(invited.status).toBe(201);
  const mail = await mailpit.waitFor(account.email, { timeoutMs: 20_000 });
  const token = /#\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.Text)?.[1];
  expect(token).toBeDefined();
  const accepted = await client()('POST', '/api/console/invitations/accept', { body: { token } });
  expect(accepted.status).toBe(200);
  expect(accepted.body.data.memberships).toContainEqual(
    expect.objectContaining({ projectId: project.id, role }),
  );
}

/** The `baas_console` Set-Cookie of an answer. */
function sessionCookie(r: CallResult): string | undefined {
  return r.headers.getSetCookie().find((c) => c.startsWith('baas_console='));
}

interface Session {
  token: string;
  ip: string;
  /** A request with the cookie (and its CSRF token on a change), from this session's address. */
  call: (method: string, path: string, opts?: CallOptions & { csrf?: boolean }) => Promise<CallResult>;
}

function sessionOf(token: string, base = BASE_URL): Session {
  const ip = randomIp();
  return {
    token,
    ip,
    call: async (method, path, opts = {}) => {
      const change = method !== 'GET' && method !== 'HEAD';
      const headers: Record<string, string> = {
        'x-forwarded-for': opts.ip ?? ip,
        cookie: `baas_console=${token}`,
        ...(change && opts.csrf !== false ? { 'x-csrf-token': csrfTokenFor(token) } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      };
      const r = await send(`${base}${path}`, {
        method,
        headers,
        ip: opts.ip ?? ip,
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      });
      const text = await r.text();
      return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
    },
  };
}

async function signIn(account: Account): Promise<Session> {
  const r = await client()('POST', '/api/console/login', {
    body: { email: account.email, password: PASSWORD },
  });
  expect(r.status).toBe(200);
  const cookie = sessionCookie(r);
  const token = /^baas_console=([^;]+)/.exec(cookie ?? '')?.[1];
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(r.body.data.csrfToken).toBe(csrfTokenFor(token!));
  return sessionOf(token!);
}

let owner: Account;
let developer: Account;
let viewer: Account;

beforeAll(async () => {
  [p, q] = await Promise.all([createProject({}, 'console-p'), createProject({}, 'console-q')]);
  [owner, developer, viewer] = await Promise.all([
    newAccount('owner'),
    newAccount('dev'),
    newAccount('viewer'),
  ]);
  await Promise.all([grant(owner, p, 'owner'), grant(developer, p, 'developer'), grant(viewer, p, 'viewer')]);
}, 60_000);

describe('console accounts through the gateway', () => {
  it('sign-in sets an HttpOnly SameSite=Strict session cookie for /api, and the session says who it is', async () => {
    const r = await client()('POST', '/api/console/login', {
      body: { email: viewer.email, password: PASSWORD },
    });
    expect(r.status).toBe(200);
    const cookie = sessionCookie(r) ?? '';
    const attributes = cookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['path=/api', 'httponly', 'samesite=strict']));
    expect(attributes.some((a) => a.startsWith('max-age='))).toBe(true);
    expect(attributes).not.toContain('secure'); // plain http here; https adds it
    expect(r.body.data).toMatchObject({
      account: { id: viewer.id, email: viewer.email, platformAdmin: false },
      memberships: [{ projectId: p.id, projectName: 'console-p', role: 'viewer' }],
    });
    const s = sessionOf(/^baas_console=([^;]+)/.exec(cookie)![1]!);
    const me = await s.call('GET', '/api/console/session');
    expect([me.status, me.body.data.account.id]).toEqual([200, viewer.id]);
    const wrong = await client()('POST', '/api/console/login', {
      body: { email: viewer.email, password: 'not-it-at-all' },
    });
    expect([wrong.status, wrong.body.code, sessionCookie(wrong)]).toEqual([
      401,
      'INVALID_CREDENTIALS',
      undefined,
    ]);
  });

  it('lists only the projects an account has a role on; any other project is not found', async () => {
    const s = await signIn(viewer);
    const list = await s.call('GET', '/api/admin/projects');
    expect(list.status).toBe(200);
    const items = list.body.data.items as Array<{ id: string }>;
    expect(items.map((i) => i.id)).toEqual([p.id]);
    for (const path of [
      `/api/admin/projects/${q.id}`,
      `/api/admin/projects/${q.id}/collections`,
      `/api/admin/projects/${q.id}/audit`,
    ]) {
      const r = await s.call('GET', path);
      expect([path, r.status, r.body.code]).toEqual([path, 404, 'PROJECT_NOT_FOUND']);
    }
    const other = await s.call('PATCH', `/api/admin/projects/${q.id}`, { body: { name: 'taken' } });
    expect([other.status, other.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
  });

  it('a viewer reads its project and is refused any change; platform-wide routes are for platform admins', async () => {
    const s = await signIn(viewer);
    const read = await s.call('GET', `/api/admin/projects/${p.id}`);
    expect([read.status, read.body.id]).toEqual([200, p.id]);
    expect((await s.call('GET', `/api/admin/projects/${p.id}/members`)).status).toBe(200);
    const patch = await s.call('PATCH', `/api/admin/projects/${p.id}`, { body: { name: 'renamed' } });
    expect([patch.status, patch.body.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
    const register = await s.call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      body: { schema: { fields: [{ key: 'text', type: 'String' }] } },
    });
    expect([register.status, register.body.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
    for (const [method, path] of [
      ['POST', '/api/admin/projects'],
      ['GET', '/api/admin/audit'],
      ['GET', '/api/admin/console/accounts'],
      ['POST', '/api/admin/signing-keys/rotate'],
    ] as const) {
      const r = await s.call(method, path, method === 'POST' ? { body: { name: 'x' } } : {});
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, 'PLATFORM_ADMIN_REQUIRED']);
    }
  });

  it('a developer registers a collection but cannot rotate keys; an owner rotates them', async () => {
    const dev = await signIn(developer);
    const register = await dev.call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      body: { schema: { fields: [{ key: 'text', type: 'String' }] } },
    });
    expect(register.status).toBe(201);
    const refused = await dev.call('POST', `/api/admin/projects/${p.id}/keys/rotate`, {
      body: { type: 'secret' },
    });
    expect([refused.status, refused.body.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
    expect((await admin('GET', '/api/data/notes', { key: p.secretKey })).status).toBe(200);

    const own = await signIn(owner);
    const rotated = await own.call('POST', `/api/admin/projects/${p.id}/keys/rotate`, {
      body: { type: 'secret' },
    });
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.secretKey as string;
    expect((await admin('GET', '/api/data/notes', { key: p.secretKey })).status).toBe(401);
    expect((await admin('GET', '/api/data/notes', { key: newKey })).status).toBe(200);
    p.secretKey = newKey;
  });

  it('a change made with the cookie needs x-csrf-token, and a request from another origin is refused', async () => {
    const own = await signIn(owner);
    const body = { settings: { publicSignups: false } };
    const attempts: Array<{ csrf?: boolean; headers?: Record<string, string> }> = [
      { csrf: false },
      { csrf: false, headers: { 'x-csrf-token': 'not-the-token' } },
      { csrf: false, headers: { 'x-csrf-token': own.token } },
      { headers: { origin: 'http://evil.example' } },
    ];
    for (const opts of attempts) {
      const r = await own.call('PATCH', `/api/admin/projects/${p.id}`, { ...opts, body });
      expect([opts, r.status, r.body.code]).toEqual([opts, 403, 'CSRF_TOKEN_INVALID']);
    }
    const read = await own.call('GET', `/api/admin/projects/${p.id}`, {
      headers: { origin: 'http://evil.example' },
    });
    expect([read.status, read.body.code]).toEqual([403, 'CSRF_TOKEN_INVALID']);
    // the console's own origin, with the token: allowed
    const ok = await own.call('PATCH', `/api/admin/projects/${p.id}`, {
      body,
      headers: { origin: new URL(BASE_URL).origin },
    });
    expect(ok.status).toBe(200);
  });

  it('signing out ends the session at once', async () => {
    const s = await signIn(viewer);
    expect((await s.call('GET', `/api/admin/projects/${p.id}`)).status).toBe(200);
    const out = await s.call('POST', '/api/console/logout');
    expect(out.status).toBe(200);
    expect(sessionCookie(out)).toMatch(/max-age=0|expires=thu, 01 jan 1970/i);
    const after = await s.call('GET', `/api/admin/projects/${p.id}`);
    expect([after.status, after.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });

  it('the console’s session check counts against the account, not the strict per-address limit', async () => {
    const s = await signIn(viewer);
    const authLimit = Number(env.RATE_LIMIT_AUTH_POINTS ?? 20);
    const accountPolicy = new RegExp(`^${env.RATE_LIMIT_ADMIN_POINTS ?? 6000};`);
    // one address, past the auth limit (credential routes) and well within the account's own
    for (let i = 0; i < authLimit + 5; i++) {
      const r = await s.call('GET', '/api/console/session');
      expect([r.status, r.headers.get('ratelimit-policy')]).toEqual([
        200,
        expect.stringMatching(accountPolicy),
      ]);
    }
    // without a live session the check stays on the address (global limit), never on an account
    const none = await client()('GET', '/api/console/session', { ip: s.ip });
    expect(none.status).toBe(401);
    expect(none.headers.get('ratelimit-policy')).not.toMatch(accountPolicy);
    // the sign-in itself stays on the strict limit
    const login = await client()('POST', '/api/console/login', {
      ip: s.ip,
      body: { email: viewer.email, password: 'wrong-password-here' },
    });
    expect(login.headers.get('ratelimit-limit')).toBe(String(authLimit));
  });

  it('audit entries of a session name its account', async () => {
    const own = await signIn(owner);
    const renamed = await own.call('PATCH', `/api/admin/projects/${p.id}`, { body: { name: 'console-p' } });
    expect(renamed.status).toBe(200);
    let entry: { actor: unknown; clientIp: string | null } | undefined;
    await until(
      async () => {
        const log = await admin('GET', `/api/admin/projects/${p.id}/audit?action=project.updated&limit=20`, {
          admin: true,
        });
        const items = log.body.data.items as Array<{
          actor: unknown;
          clientIp: string | null;
          requestId: string;
        }>;
        entry = items.find((e) => e.requestId === renamed.headers.get('x-request-id'));
        return entry !== undefined;
      },
      20_000,
      'the audit entry',
      500,
    );
    expect(entry?.actor).toEqual({ type: 'console-account', id: owner.id, email: owner.email });
    expect([own.ip, loopbackFor(own.ip)]).toContain(entry?.clientIp);
  });
});

describe('changes to an account take effect at once', () => {
  let other: ServiceProcess;

  beforeAll(async () => {
    // what this one cached learns of changes made through the stack's gateway only through NATS
    other = await anotherGateway({});
  }, 30_000);
  afterAll(async () => {
    await other?.stop();
  });

  it('a role change reaches this gateway and, through NATS, another one that had the session cached', async () => {
    const account = await newAccount('promoted');
    await grant(account, p, 'viewer');
    const here = await signIn(account);
    const there = sessionOf(here.token, other.url);
    const put = (s: Session) =>
      s.call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
        body: { schema: { fields: [{ key: 'text', type: 'String' }] } },
      });
    expect((await put(here)).body.code).toBe('INSUFFICIENT_ROLE');
    expect((await put(there)).body.code).toBe('INSUFFICIENT_ROLE'); // cached there now

    const changed = await admin('PATCH', `/api/admin/projects/${p.id}/members/${account.id}`, {
      admin: true,
      body: { role: 'developer' },
    });
    expect(changed.status).toBe(200);
    expect((await put(here)).status).toBe(200);
    await until(
      async () => (await put(there)).status === 200,
      5000,
      'the other gateway to see the new role',
      200,
    );

    // removed from the project: not found at once, on both
    const removed = await admin('DELETE', `/api/admin/projects/${p.id}/members/${account.id}`, {
      admin: true,
    });
    expect(removed.status).toBe(200);
    expect((await here.call('GET', `/api/admin/projects/${p.id}`)).status).toBe(404);
    await until(
      async () => (await there.call('GET', `/api/admin/projects/${p.id}`)).status === 404,
      5000,
      'the other gateway to drop the membership',
      200,
    );
  });

  it('a sign-out on one gateway ends the session on the other', async () => {
    const here = await signIn(viewer);
    const there = sessionOf(here.token, other.url);
    expect((await there.call('GET', `/api/admin/projects/${p.id}`)).status).toBe(200);
    expect((await here.call('POST', '/api/console/logout')).status).toBe(200);
    await until(
      async () => (await there.call('GET', `/api/admin/projects/${p.id}`)).status === 401,
      5000,
      'the other gateway to drop the session',
      200,
    );
  });
});

describe('the admin rate limit', () => {
  let other: ServiceProcess;

  beforeAll(async () => {
    // small limits, and buckets of its own (another Redis database): the stack's gateway leases
    // points of an account's bucket in Redis by the hundred under its own, larger, limit
    const redis = new URL(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    redis.pathname = '/1';
    other = await anotherGateway({
      RATE_LIMIT_GLOBAL_POINTS: '3',
      RATE_LIMIT_ADMIN_POINTS: '5',
      REDIS_URL: redis.toString(),
    });
  }, 30_000);
  afterAll(async () => {
    await other?.stop();
  });

  it('counts admin requests per account, not per address: past the per-IP limit, up to its own, then 429', async () => {
    // that gateway: 3 requests per address, 5 admin requests per account
    const account = await newAccount('limited');
    await grant(account, p, 'viewer');
    const s = sessionOf((await signIn(account)).token, other.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await s.call('GET', `/api/admin/projects/${p.id}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const over = await s.call('GET', `/api/admin/projects/${p.id}`);
    expect([over.status, over.body.code, over.headers.get('ratelimit-limit')]).toEqual([
      429,
      'RATE_LIMITED',
      '5',
    ]);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // another account at the same address has its own bucket, and the address's is untouched
    const fresh = await newAccount('limited-other');
    await grant(fresh, p, 'viewer');
    const t = sessionOf((await signIn(fresh)).token, other.url);
    const same = await t.call('GET', `/api/admin/projects/${p.id}`, { ip: s.ip });
    expect([same.status, same.headers.get('ratelimit-limit')]).toEqual([200, '5']);
    const keyRoute = await send(`${other.url}/api/data/notes`, { ip: s.ip });
    expect([keyRoute.status, keyRoute.headers.get('ratelimit-remaining')]).toEqual([401, '2']);
  });

  it('keeps admin attempts without a live session on the per-IP limit', async () => {
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await send(`${other.url}/api/admin/projects`, {
        ip,
        headers: { cookie: `baas_console=${'x'.repeat(43)}` },
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
