import { client, loopbackFor, randomIp } from '../support/e2e';
import { canary, dataProject } from './data-support';

/**
 * Issue 12, item 3 and the audit log, end to end through the gateway on the stack's store:
 * re-registering a private collection without `rls` keeps it private, turning RLS off takes an
 * explicit value, and every admin action leaves exactly one entry a tenant can neither read nor
 * write.
 */
interface Entry {
  id: string;
  at: string;
  action: string;
  projectId: string | null;
  actor: { type: string };
  target: { type: string; id: string };
  requestId: string | null;
  clientIp: string | null;
  details: Record<string, unknown> | null;
}

/**
 * Polls until `f` gives a value (entries arrive through the outbox and a consumer). Twice a
 * second: each poll is a request through the gateway, and a client polling every 100 ms on a slow
 * store (FerretDB) ran into the per-IP limit (100 per 15 min) before the entries arrived.
 */
async function eventually<T>(f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting for audit entries');
    await new Promise((r) => setTimeout(r, 500));
  }
}

const PRIVATE = { enabled: true, mode: 'private', ownerField: 'userId' };

describe('re-registering a collection through the gateway', () => {
  it('a PUT with only a new schema keeps a private collection private; a publishable key alone reads nothing', async () => {
    const p = await dataProject();
    await p.register('notes', { rls: PRIVATE });
    const [a, b] = [await p.user(), await p.user()];
    const bCanary = canary('B');
    const created = await p.call('POST', '/api/data/notes', {
      key: p.publishableKey,
      token: b.token,
      body: { text: bCanary },
    });
    expect(created.status).toBe(201);

    const put = await p.call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      admin: true,
      body: { schema: { fields: [{ key: 'text', type: 'String' }] } },
    });
    expect(put.status).toBe(200);
    expect(put.body.rls).toEqual(PRIVATE);

    const anonymous = await p.call('GET', '/api/data/notes', { key: p.publishableKey });
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(anonymous.body)).not.toContain(bCanary);
    const asA = await p.call('GET', '/api/data/notes', { key: p.publishableKey, token: a.token });
    expect(asA.status).toBe(200);
    expect(asA.body.data.items).toEqual([]);
    expect(JSON.stringify(asA.body)).not.toContain(bCanary);
  });

  it('rls: null is a 400 in the contract error body and changes nothing', async () => {
    const p = await dataProject();
    await p.register('notes', { rls: PRIVATE });
    const put = await p.call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      admin: true,
      body: { rls: null },
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({
      success: false,
      code: 'VALIDATION_FAILED',
      requestId: expect.any(String),
    });
    const got = await p.call('GET', `/api/admin/projects/${p.id}/collections`, { admin: true });
    expect(got.body[0].rls).toEqual(PRIVATE);
  });

  it('turning RLS off takes { enabled: false } and is in the audit log with the client IP and request id', async () => {
    const p = await dataProject();
    await p.register('notes', { rls: PRIVATE });
    const ip = randomIp();
    const off = await client(ip)('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      admin: true,
      body: { rls: { enabled: false } },
      headers: { 'x-request-id': 'rls-off-e2e-1' },
    });
    expect(off.status).toBe(200);
    expect(off.body.rls.enabled).toBe(false);
    const entry = await eventually(async () => {
      const r = await client()('GET', `/api/admin/projects/${p.id}/audit?action=collection.rls_disabled`, {
        admin: true,
      });
      return (r.body?.data?.items as Entry[] | undefined)?.[0];
    });
    expect(entry).toMatchObject({
      projectId: p.id,
      actor: { type: 'platform-admin' },
      target: { type: 'collection', id: 'notes' },
      requestId: 'rls-off-e2e-1',
      details: { rls: { before: PRIVATE, after: { enabled: false } } },
    });
    // The client's address as the gateway saw it: X-Forwarded-For when TRUST_PROXY trusts the
    // loopback peer, else the peer itself (each test client leaves from its own loopback address).
    expect([ip, loopbackFor(ip)]).toContain(entry.clientIp);
  });
});

async function auditOf(projectId: string, n: number): Promise<Entry[]> {
  const call = client();
  // Entries arrive through the outbox and the consumer (well under a second); then nothing more.
  await eventually(async () => {
    const r = await call('GET', `/api/admin/projects/${projectId}/audit?limit=100`, { admin: true });
    return (r.body?.data?.items as Entry[] | undefined)?.length === n ? true : undefined;
  });
  await new Promise((r) => setTimeout(r, 1500));
  const r = await call('GET', `/api/admin/projects/${projectId}/audit?limit=100`, { admin: true });
  return r.body.data.items as Entry[];
}

describe('audit log of admin actions (through the gateway)', () => {
  it('every listed admin action produces exactly one entry, newest first', async () => {
    const p = await dataProject();
    const call = client();
    const admin = { admin: true };
    expect(
      (await call('PATCH', `/api/admin/projects/${p.id}`, { ...admin, body: { name: 'renamed' } })).status,
    ).toBe(200);
    expect(
      (
        await call('POST', `/api/admin/projects/${p.id}/keys/rotate`, {
          ...admin,
          body: { type: 'secret' },
        })
      ).status,
    ).toBe(200);
    await p.register('posts', { rls: PRIVATE });
    await p.register('posts', { rls: { enabled: false } });
    expect((await call('DELETE', `/api/admin/projects/${p.id}/collections/posts`, admin)).status).toBe(200);
    const r = await client()('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: `audit${Date.now()}@example.com`, password: 'a long enough passphrase 42' },
    });
    expect(r.status).toBe(201);
    const userId = String(r.body.user._id);
    expect((await call('DELETE', `/api/admin/projects/${p.id}/users/${userId}`, admin)).status).toBe(200);
    const rotated = await call('POST', '/api/admin/signing-keys/rotate', admin);
    expect(rotated.status).toBe(200);
    expect((await call('DELETE', `/api/admin/projects/${p.id}`, admin)).status).toBe(200);

    const entries = await auditOf(p.id, 8);
    expect(entries.map((e) => [e.action, e.target.type])).toEqual([
      ['project.deleted', 'project'],
      ['user.deleted', 'user'],
      ['collection.deleted', 'collection'],
      ['collection.rls_disabled', 'collection'],
      ['collection.registered', 'collection'],
      ['project.key_rotated', 'api-key'],
      ['project.updated', 'project'],
      ['project.created', 'project'],
    ]);
    expect(new Set(entries.map((e) => e.id)).size).toBe(8);
    for (const e of entries) {
      expect(e.actor).toEqual({ type: 'platform-admin' });
      expect(typeof e.clientIp).toBe('string');
      expect(typeof e.requestId).toBe('string');
    }
    const keyRotations = await client()(
      'GET',
      '/api/admin/audit?action=signing_key.rotated&limit=100',
      admin,
    );
    expect(
      (keyRotations.body.data.items as Entry[]).filter((e) => e.target.id === rotated.body.data.kid),
    ).toHaveLength(1);
  });

  it('a tenant key, publishable or secret, can neither read nor write the log', async () => {
    const p = await dataProject();
    const call = client();
    const before = await auditOf(p.id, 1);
    for (const path of [`/api/admin/projects/${p.id}/audit`, '/api/admin/audit']) {
      for (const key of [p.publishableKey, p.secretKey]) {
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
          const r = await call(method, path, { key, ...(method === 'GET' ? {} : { body: { action: 'x' } }) });
          expect(r.status).toBe(401);
          expect(r.body).toMatchObject({ success: false, code: 'ADMIN_TOKEN_REQUIRED' });
        }
      }
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const r = await call(method, path, { admin: true, body: { action: 'project.created' } });
        expect(r.status).toBe(404);
      }
    }
    const after = await call('GET', `/api/admin/projects/${p.id}/audit`, { admin: true });
    expect(after.body.data.items).toEqual(before);
  });
});

describe("audit log of end users' security events (through the gateway)", () => {
  it('records a sign-in and a failed one with the client address the gateway saw', async () => {
    const p = await dataProject();
    const ip = randomIp();
    const user = client(ip);
    const email = `signin${Date.now()}@example.com`;
    const password = 'a long enough passphrase 42';
    expect(
      (await user('POST', '/api/userAuth/signup', { key: p.publishableKey, body: { email, password } }))
        .status,
    ).toBe(201);
    expect(
      (await user('POST', '/api/userAuth/login', { key: p.publishableKey, body: { email, password } }))
        .status,
    ).toBe(200);
    expect(
      (
        await user('POST', '/api/userAuth/login', {
          key: p.publishableKey,
          body: { email, password: 'wrong passphrase 42' },
        })
      ).status,
    ).toBe(401);
    const admin = client();
    const of = async (action: string) =>
      (
        await eventually(async () => {
          const r = await admin('GET', `/api/admin/projects/${p.id}/audit?action=${action}`, { admin: true });
          const items = r.body?.data?.items as Entry[] | undefined;
          return items?.length ? items : undefined;
        })
      )[0]!;
    const signedIn = await of('user.logged_in');
    expect(signedIn).toMatchObject({ actor: { type: 'end-user' }, target: { type: 'user' } });
    expect([ip, loopbackFor(ip)]).toContain(signedIn.clientIp);
    const failed = await of('user.login_failed');
    expect(failed).toMatchObject({
      actor: { type: 'anonymous' },
      details: { email, reason: 'wrong_password' },
    });
    expect([ip, loopbackFor(ip)]).toContain(failed.clientIp);
  });
});
