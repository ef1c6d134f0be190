import {
  BASE_URL,
  MAIL_API_URL,
  client,
  createProject,
  randomIp,
  send,
  type TestProject,
} from '../support/e2e';
import { until } from '../support/until';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { BaasError, createClient, type ClientOptions, type FetchLike } from '../../packages/sdk/src/index.js';

/**
 * Issue 15: the SDK (packages/sdk) against the whole running system, through the gateway only.
 * Each SDK client is its own network peer (the suite's `send`: its own loopback address and
 * X-Forwarded-For), so per-IP rate limits never join tests; every test makes its own project.
 */
const admin = client();
const mailpit = new Mailpit(MAIL_API_URL);

interface Recorded {
  path: string;
  method: string;
  authorization: string | undefined;
}

/** A FetchLike over the suite's HTTP client, recording what the SDK sent. */
function peerFetch(ip = randomIp()): FetchLike & { log: Recorded[] } {
  const log: Recorded[] = [];
  const f: FetchLike = async (url, init) => {
    log.push({ path: new URL(url).pathname, method: init.method, authorization: init.headers.authorization });
    return send(url, {
      method: init.method,
      headers: init.headers,
      ip,
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
  };
  return Object.assign(f, { log });
}

function sdk(key: string, extra: Partial<ClientOptions> = {}) {
  const fetch = peerFetch();
  return { client: createClient({ baseUrl: BASE_URL, apiKey: key, fetch, ...extra }), fetch };
}

const refreshCalls = (f: { log: Recorded[] }) =>
  f.log.filter((r) => r.path === '/api/userAuth/refresh-token').length;

async function register(p: TestProject, name: string, def: unknown = {}): Promise<void> {
  const r = await admin('PUT', `/api/admin/projects/${p.id}/collections/${name}`, { admin: true, body: def });
  if (r.status !== 201 && r.status !== 200)
    throw new Error(`register ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}

const email = (tag: string) =>
  `${tag}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.test`;
const PASSWORD = 'password-123';

/** The same JWT with another payload: the signature no longer matches, the server refuses it. */
function withClaims(token: string, claims: Record<string, unknown>): string {
  const [h, p, s] = token.split('.');
  const payload = { ...JSON.parse(Buffer.from(p ?? '', 'base64url').toString()), ...claims };
  return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
}

/** A token with a broken signature but a future exp: the client cannot tell, the server says 401. */
function refusedToken(token: string): string {
  const [h, p, sig = ''] = token.split('.');
  return `${h}.${p}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
}

interface Note {
  text: string;
  ownerId?: string;
}

interface Todo {
  title: string;
  done: boolean;
  priority: number;
  tags: string[];
  meta?: { views: number };
}

describe('SDK: auth', () => {
  it('signs up, reads me, logs in elsewhere, logs out (the refresh token is then dead)', async () => {
    const p = await createProject();
    const { client: a } = sdk(p.publishableKey);
    const address = email('sdk');
    const signed = await a.auth.signup({ email: address, password: PASSWORD, nickname: 'ada' });
    expect(signed.user).toMatchObject({ email: address, emailVerified: false, nickname: 'ada' });
    expect(signed.session?.refreshToken).toMatch(/^rt_/);
    expect(signed.session?.expiresAt).toBeGreaterThan(Date.now() + 800_000);
    expect((await a.auth.me()).email).toBe(address);

    const { client: b } = sdk(p.publishableKey);
    const events: string[] = [];
    b.auth.onAuthStateChange((e) => events.push(e));
    const logged = await b.auth.login({ email: address, password: PASSWORD });
    expect(logged.user._id).toBe(signed.user._id);
    const bSession = await b.auth.getSession();
    await b.auth.logout();
    expect(await b.auth.getSession()).toBeNull();
    expect(events).toEqual(['SIGNED_IN', 'SIGNED_OUT']);
    // The logged-out refresh token is refused; the other login lives on.
    const { client: c } = sdk(p.publishableKey);
    await c.auth.setSession(bSession);
    await expect(c.auth.refresh()).rejects.toMatchObject({ status: 401 });
    expect((await a.auth.refresh()).accessToken).toEqual(expect.any(String));
    expect((await a.auth.me()).email).toBe(address);
  });

  it('wrong credentials: a typed error with the contract code and a request id', async () => {
    const p = await createProject();
    const { client: a } = sdk(p.publishableKey);
    const e = (await a.auth
      .login({ email: email('nobody'), password: 'wrong-password' })
      .catch((x: unknown) => x)) as BaasError;
    expect(e).toBeInstanceOf(BaasError);
    expect(e).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS', requestId: expect.any(String) });
    await a.auth.signup({ email: 'dup@example.test', password: PASSWORD });
    await expect(a.auth.signup({ email: 'DUP@example.test', password: PASSWORD })).rejects.toMatchObject({
      status: 400,
      code: 'DUPLICATE_VALUE',
    });
  });
});

describe('SDK: refresh', () => {
  async function setup() {
    const p = await createProject();
    await register(p, 'notes', { rls: { enabled: true, mode: 'private', ownerField: 'ownerId' } });
    const { client: c, fetch } = sdk(p.publishableKey);
    const { session } = await c.auth.signup({ email: email('race'), password: PASSWORD });
    await c.collection<Note>('notes').insert({ text: 'mine' });
    if (!session) throw new Error('no session');
    return { p, c, fetch, session };
  }

  it('10 concurrent calls with an expired access token: all succeed after exactly one refresh', async () => {
    const { c, fetch, session } = await setup();
    const expired = withClaims(session.accessToken, { exp: Math.floor(Date.now() / 1000) - 60 });
    await c.auth.setSession({ accessToken: expired, refreshToken: session.refreshToken });
    const before = refreshCalls(fetch);
    const pages = await Promise.all(Array.from({ length: 10 }, () => c.collection<Note>('notes').list()));
    for (const page of pages) expect(page.items.map((n) => n.text)).toEqual(['mine']);
    expect(refreshCalls(fetch) - before).toBe(1);
    expect(fetch.log.filter((r) => r.authorization === `Bearer ${expired}`)).toEqual([]);
    const now = await c.auth.getSession();
    expect(now?.refreshToken).not.toBe(session.refreshToken);
  });

  it('10 concurrent calls whose token the server refuses (401 INVALID_TOKEN): one refresh, one retry each', async () => {
    const { c, fetch, session } = await setup();
    const refused = refusedToken(session.accessToken);
    await c.auth.setSession({ accessToken: refused, refreshToken: session.refreshToken });
    const before = refreshCalls(fetch);
    const pages = await Promise.all(Array.from({ length: 10 }, () => c.collection<Note>('notes').list()));
    for (const page of pages) expect(page.items).toHaveLength(1);
    expect(refreshCalls(fetch) - before).toBe(1);
    expect(fetch.log.filter((r) => r.authorization === `Bearer ${refused}`)).toHaveLength(10);
  });

  it('replaying an old refresh token: REFRESH_TOKEN_REUSED, and the whole login is dead', async () => {
    const { p, c, session } = await setup();
    const first = session.refreshToken;
    await c.auth.refresh();
    const latest = await c.auth.refresh();
    expect(latest.refreshToken).not.toBe(first);

    const { client: thief } = sdk(p.publishableKey);
    await thief.auth.setSession({ accessToken: session.accessToken, refreshToken: first });
    const e = (await thief.auth.refresh().catch((x: unknown) => x)) as BaasError;
    expect(e).toBeInstanceOf(BaasError);
    expect(e).toMatchObject({ status: 401, code: 'REFRESH_TOKEN_REUSED', requestId: expect.any(String) });
    expect(await thief.auth.getSession()).toBeNull();

    // The legitimate holder's login was revoked with it: its access token stops working within
    // about a second, and the SDK's refresh then fails and ends the local session.
    const raw = client();
    await until(
      async () =>
        (await raw('GET', '/api/userAuth/me', { key: p.publishableKey, token: latest.accessToken }))
          .status === 401,
      5000,
      'the revoked access token to be refused',
    );
    await expect(c.collection<Note>('notes').list()).rejects.toMatchObject({ status: 401 });
    expect(await c.auth.getSession()).toBeNull();
  });
});

describe('SDK: data', () => {
  it('typed collection CRUD with trash and restore', async () => {
    const p = await createProject();
    await register(p, 'todos', {
      schema: {
        fields: [
          { key: 'title', type: 'String', required: true },
          { key: 'done', type: 'Boolean' },
          { key: 'priority', type: 'Number' },
          { key: 'tags', type: 'Array', items: { type: 'String' } },
        ],
      },
    });
    const { client: server } = sdk(p.secretKey);
    const todos = server.collection<Todo>('todos');
    const t = await todos.insert({ title: 'write sdk', done: false, priority: 2, tags: ['dev'] });
    expect(t).toMatchObject({
      title: 'write sdk',
      isDeleted: false,
      deletedAt: null,
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect((await todos.get(t._id)).title).toBe('write sdk');
    const u = await todos.update(t._id, { done: true, 'meta.views': 3 });
    expect(u).toMatchObject({ title: 'write sdk', done: true, meta: { views: 3 } });
    expect(await todos.delete(t._id)).toEqual({ id: t._id });
    await expect(todos.get(t._id)).rejects.toMatchObject({ status: 404, requestId: expect.any(String) });
    expect((await todos.get(t._id, { includeDeleted: true })).isDeleted).toBe(true);
    expect((await todos.restore(t._id)).isDeleted).toBe(false);
    expect((await todos.get(t._id)).done).toBe(true);
    const invalid = (await todos
      .insert({ done: true } as unknown as Todo)
      .catch((x: unknown) => x)) as BaasError;
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(invalid.details?.length).toBeGreaterThan(0);
  });

  it('filters, cursor iteration over more than one page, aggregation', async () => {
    const p = await createProject();
    await register(p, 'todos', {
      schema: {
        fields: [
          { key: 'priority', type: 'Number' },
          { key: 'done', type: 'Boolean' },
        ],
      },
    });
    const { client: server, fetch } = sdk(p.secretKey);
    const todos = server.collection<Todo>('todos');
    for (let i = 0; i < 23; i++)
      await todos.insert({
        title: `task ${i}`,
        done: i % 3 === 0,
        priority: i % 5,
        tags: i % 2 ? ['odd'] : ['even'],
      });

    const done = await todos.list({ filter: { done: true }, limit: 100 });
    expect(done.total).toBe(8);
    const high = await todos.list({
      filter: { priority: { gt: 2 }, tags: 'odd' },
      sort: ['-priority', 'title'],
    });
    expect(high.items.every((x) => x.priority > 2 && x.tags.includes('odd'))).toBe(true);
    expect(high.items.map((x) => x.priority)).toEqual(
      [...high.items.map((x) => x.priority)].sort((a, b) => b - a),
    );
    const some = await todos.list({ filter: { title: { in: ['task 1', 'task 2'] } } });
    expect(some.items.map((x) => x.title).sort()).toEqual(['task 1', 'task 2']);
    const re = await todos.list({ filter: { title: { regex: /^task 2\d$/ }, priority: { ne: 0 } } });
    // task 20..22 match the pattern; task 20 has priority 0
    expect(re.items.map((x) => x.title).sort()).toEqual(['task 21', 'task 22']);

    const seen = new Set<string>();
    const listCalls = () =>
      fetch.log.filter((r) => r.path === '/api/data/todos' && r.method === 'GET').length;
    const before = listCalls();
    for await (const todo of todos.iterate({ limit: 5, sort: 'createdAt' })) seen.add(todo._id);
    expect(seen.size).toBe(23);
    expect(listCalls() - before).toBe(5);
    let pages = 0;
    for await (const page of todos.pages({ limit: 10, filter: { done: false } })) {
      pages++;
      expect(page.items.every((x) => !x.done)).toBe(true);
    }
    expect(pages).toBe(2);

    const rows = await todos.aggregate<{ _id: boolean; n: number; sum: number }>([
      { $group: { _id: '$done', n: { $sum: 1 }, sum: { $sum: '$priority' } } },
      { $sort: { _id: 1 } },
    ]);
    expect(rows.map((r) => [r._id, r.n])).toEqual([
      [false, 15],
      [true, 8],
    ]);
  });

  it('errors carry the code and the request id (our own x-request-id when we send one)', async () => {
    const p = await createProject();
    const { client: server } = sdk(p.secretKey);
    const e = (await server
      .collection('nope')
      .list({ headers: { 'x-request-id': 'sdk-e2e-req-1' } })
      .catch((x: unknown) => x)) as BaasError;
    expect(e).toBeInstanceOf(BaasError);
    expect(e).toMatchObject({ status: 404, code: 'COLLECTION_NOT_FOUND', requestId: 'sdk-e2e-req-1' });
    const reserved = (await server
      .collection('users')
      .list()
      .catch((x: unknown) => x)) as BaasError;
    expect(reserved).toMatchObject({
      status: 403,
      code: 'USERS_COLLECTION_RESERVED',
      requestId: expect.any(String),
    });
    const { client: browserish } = sdk(p.publishableKey);
    await register(p, 'open');
    await expect(browserish.collection('open').insert({ a: 1 })).rejects.toMatchObject({
      status: 403,
      code: 'RLS_REQUIRED',
    });
  });
});

describe('SDK: storage and mail', () => {
  it('uploads with progress events (fetch here: start and end), serves the URL, deletes', async () => {
    const p = await createProject();
    const { client: c } = sdk(p.publishableKey);
    const content = 'hello from the sdk '.repeat(100);
    const progress: Array<[number, number | undefined]> = [];
    const up = await c.storage.upload(new Blob([content], { type: 'text/plain' }), {
      filename: 'hello.txt',
      onProgress: (e) => progress.push([e.loaded, e.total]),
    });
    expect(up.path).toMatch(new RegExp(`^${p.id}/[A-Za-z0-9_-]{22}\\.txt$`));
    expect(progress).toEqual([
      [0, content.length],
      [content.length, content.length],
    ]);
    expect(c.storage.downloadUrl(up.path)).toBe(up.url);
    const got = await send(up.url);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe(content);
    await c.storage.delete(up.path);
    await expect(c.storage.delete(up.path)).rejects.toMatchObject({ status: 404, code: 'FILE_NOT_FOUND' });
  });

  it('sends mail with the secret key; the publishable key is refused with a typed error', async () => {
    const p = await createProject();
    const { client: server } = sdk(p.secretKey);
    const to = uniqueAddress('sdk-mail');
    const sent = await server.mail.send({ to, subject: 'From the SDK', text: 'typed and sent' });
    expect(sent).toMatchObject({ id: expect.any(String), provider: 'smtp', monthlyUsage: 1 });
    expect(sent.monthlyLimit).toBeGreaterThan(0);
    await until(async () => (await mailpit.to(to)).length === 1, 10000, 'the mail in Mailpit');
    expect((await mailpit.to(to))[0]?.Subject).toBe('From the SDK');
    const { client: pk } = sdk(p.publishableKey);
    await expect(pk.mail.send({ to, subject: 's', text: 't' })).rejects.toMatchObject({
      status: 403,
      code: 'SECRET_KEY_REQUIRED',
      requestId: expect.any(String),
    });
  });

  it('abort signals: an aborted call never reaches the gateway', async () => {
    const p = await createProject();
    await register(p, 'items');
    const { client: c, fetch } = sdk(p.secretKey);
    const before = fetch.log.length;
    const ac = new AbortController();
    ac.abort();
    await expect(c.collection('items').list({ signal: ac.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(fetch.log.length).toBe(before);
    // The platform's own fetch (the default) honours the signal too. (It cannot pick a source
    // address, so only calls that never leave the process use it here: the gateway limits per IP.)
    const platform = createClient({ baseUrl: BASE_URL, apiKey: p.secretKey });
    await expect(
      platform.collection('items').get('x'.repeat(24), { signal: ac.signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});
