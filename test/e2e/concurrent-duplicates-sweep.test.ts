import { randomBytes } from 'node:crypto';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { ADMIN_TOKEN, BASE_URL, MAIL_API_URL, randomIp, send } from '../support/e2e';
import { operations, schemesOf, type Operation } from '../support/openapi-operations';
import { anotherGateway, freePort, ServiceProcess } from '../support/service-process';
import { stackEnv } from '../support/stack-env';
import { acceptInvitation, consoleSignIn, invitationToken } from '../support/console-session';

/**
 * The same request sent several times at once is answered as if the copies had come one after
 * another: for every operation of the OpenAPI document, COPIES identical requests go out in a row
 * on what a fixture of their own made, and COPIES more all at once on another fixture made alike,
 * half of them through a second replica of the whole system (a gateway of its own in front of a
 * second process of auth, data, storage and mail, on the same databases, NATS and Redis). On
 * FerretDB, which runs one replica of each data-owning service (docs/operations.md, "Stores and
 * replica counts"), the second replica is a gateway alone, in front of the stack's services.
 * The two sets of statuses must be the same: a create that collides (the same email, template key
 * or collection) is a 201 once and a refusal for the rest, a delete a success once and a 404 for
 * the rest, a password change (with the old password) or an invitation's acceptance succeed once;
 * an idempotent write succeeds every time. Never a 5xx. A race that lets two copies through a
 * check before either writes, or turns a collision into a 500, shows here, on every store.
 */
const COPIES = 5;
const PASSWORD = 'a long enough passphrase 42';
const NEW_PASSWORD = 'another long passphrase 43';
const mailpit = new Mailpit(MAIL_API_URL);

/**
 * Left out: rotating the platform's signing key changes every service's keys for the files that
 * run after this one.
 */
const LEFT_OUT = new Set(['POST /api/admin/signing-keys/rotate']);

/** What a fixture made, for the path, headers and body of one operation's copies. */
interface Fixture {
  projectId: string;
  secretKey: string;
  publishableKey: string;
  user: { id: string; email: string; username: string; token: string; refreshToken: string };
  docId: string;
  trashedId: string;
  file: { path: string; name: string };
  templateKey: string;
  /** Made on demand: a console member (developer), an invitation and its token, an account. */
  memberId?: string;
  invitation?: { id: string; token: string };
  account?: { id: string; email: string; session: Record<string, string> };
  /** This fixture's own email for the bodies that create something by email. */
  email: string;
}

/** Global templates the sweep made: removed at the end. */
const globalTemplates: string[] = [];
/** Console accounts the sweep made: removed at the end. */
const consoleEmails: string[] = [];

let adminSession: Record<string, string>;

interface Answer {
  status: number;
  text: string;
}

async function request(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  base = BASE_URL,
): Promise<Answer> {
  const r = await send(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ip: randomIp(),
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: r.status, text: await r.text() };
}

async function must<T>(what: string, a: Promise<Answer>, ok = [200, 201]): Promise<T> {
  const r = await a;
  if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return (r.text ? JSON.parse(r.text) : undefined) as T;
}

async function consoleAccount(platformAdmin: boolean): Promise<{ id: string; email: string }> {
  const email = uniqueAddress('race-console');
  consoleEmails.push(email);
  const made = await must<{ data: { id: string } }>(
    'console account',
    request(
      'POST',
      '/api/admin/console/accounts',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      {
        email,
        password: PASSWORD,
        platformAdmin,
      },
    ),
  );
  return { id: made.data.id, email };
}

/** An invitation of a new email to the project, with the token its mail carries. */
async function invite(
  projectId: string,
  role: string,
): Promise<{ id: string; token: string; email: string }> {
  const email = uniqueAddress('race-member');
  const made = await must<{ data: { id: string } }>(
    'invitation',
    request('POST', `/api/admin/projects/${projectId}/members`, adminSession, { email, role }),
  );
  return { id: made.data.id, token: await invitationToken(mailpit, email), email };
}

/**
 * A fixture of the operation's own: a project, and what the operation's path needs of it (a
 * collection with a document and one in the trash, an end user, a file, a template), each made
 * only where the operation can touch it, so that a fixture costs what it must.
 */
async function fixture(op: Operation): Promise<Fixture> {
  const project = await must<{ id: string; secretKey: string; publishableKey: string }>(
    'project',
    request('POST', '/api/admin/projects', adminSession, { name: 'race' }),
  );
  const p = project.id;
  const key = { 'x-api-key': project.secretKey };
  const f: Fixture = {
    projectId: p,
    secretKey: project.secretKey,
    publishableKey: project.publishableKey,
    user: { id: '', email: '', username: '', token: '', refreshToken: '' },
    docId: '',
    trashedId: '',
    file: { path: '', name: '' },
    templateKey: `race-${randomBytes(4).toString('hex')}`,
    email: uniqueAddress('race-made'),
  };
  if (/\/(data|documents|collections)\b/.test(op.path)) {
    await must(
      'collection',
      request('PUT', `/api/admin/projects/${p}/collections/notes`, adminSession, {
        schema: { fields: [{ key: 'title', type: 'String' }] },
      }),
    );
    const made = (title: string) =>
      must<{ _id: string }>('document', request('POST', '/api/data/notes', key, { title }));
    f.docId = (await made('a'))._id;
    f.trashedId = (await made('b'))._id;
    await must('trash', request('DELETE', `/api/data/notes/${f.trashedId}`, key));
  }
  if (op.path.startsWith('/api/userAuth') || op.path.includes('{userId}')) {
    const email = uniqueAddress('race-user');
    const username = `race${randomBytes(5).toString('hex')}`;
    const signup = await must<{ accessToken: string; refreshToken: string; user: { _id: string } }>(
      'signup',
      request(
        'POST',
        '/api/userAuth/signup',
        { 'x-api-key': project.publishableKey, 'x-refresh-token-mode': 'header' },
        { email, password: PASSWORD, username },
      ),
    );
    f.user = {
      id: signup.user._id,
      email,
      username,
      token: signup.accessToken,
      refreshToken: signup.refreshToken,
    };
  }
  if (/\/(storage|files)\b/.test(op.path)) {
    const form = new FormData();
    form.append('file', new Blob(['a file'], { type: 'text/plain' }), 'a.txt');
    const stored = await send(`${BASE_URL}/api/storage/upload`, {
      method: 'POST',
      headers: key,
      ip: randomIp(),
      body: form,
    });
    if (stored.status !== 201) throw new Error(`upload: ${stored.status} ${await stored.text()}`);
    const path = ((await stored.json()) as { path: string }).path;
    f.file = { path, name: path.slice(path.indexOf('/') + 1) };
  }
  // the template exists, except for its PUT: that one is created by the copies
  const global = op.path.startsWith('/api/admin/mail/templates/{key}');
  if (global) globalTemplates.push(f.templateKey);
  if (op.path.includes('/mail/') && (op.method !== 'PUT' || !op.path.endsWith('/templates/{key}')))
    await must(
      'template',
      request(
        'PUT',
        global
          ? `/api/admin/mail/templates/${f.templateKey}`
          : `/api/admin/projects/${p}/mail/templates/${f.templateKey}`,
        adminSession,
        { subject: 'Hello {{name}}', text: 'Hi {{name}}' },
      ),
    );
  if (op.path.includes('/members/{accountId}')) {
    const member = await invite(p, 'developer');
    await acceptInvitation(member.token, PASSWORD);
    const members = await must<{ data: { members: Array<{ accountId: string; email: string }> } }>(
      'members',
      request('GET', `/api/admin/projects/${p}/members`, adminSession),
    );
    f.memberId = members.data.members.find((m) => m.email === member.email)?.accountId;
  }
  if (op.path.includes('invitation')) f.invitation = await invite(p, 'viewer');
  if (op.path.startsWith('/api/console/') || op.path.startsWith('/api/admin/console/accounts/{')) {
    const account = await consoleAccount(false);
    f.account = { ...account, session: await consoleSignIn(account.email, PASSWORD) };
  }
  if (op.path === '/api/admin/console/accounts' && op.method === 'POST') consoleEmails.push(f.email);
  return f;
}

/** The path of the operation's copies, naming what the fixture made. */
function pathOf(op: Operation, f: Fixture): string {
  const values: Record<string, string> = {
    projectId: f.projectId,
    // a collection's PUT registers a new one (the copies collide); the rest name the fixture's
    collectionName: 'notes',
    name: op.path.includes('/files/')
      ? f.file.name
      : op.method === 'PUT' && op.path.endsWith('/collections/{name}')
        ? 'fresh'
        : 'notes',
    id: op.path.endsWith('/restore') ? f.trashedId : f.docId,
    userId: f.user.id,
    username: f.user.username,
    key: f.templateKey,
    accountId: op.path.includes('/members/') ? (f.memberId ?? '') : (f.account?.id ?? ''),
    invitationId: f.invitation?.id ?? '',
  };
  return op.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? '');
}

/** The credentials each copy goes with. */
function headersOf(op: Operation, f: Fixture): Record<string, string> {
  const schemes = schemesOf(op);
  const refresh = op.path === '/api/userAuth/refresh-token' || op.path === '/api/userAuth/logout';
  if (op.path.startsWith('/api/console/') && schemes.includes('consoleSession')) return f.account!.session;
  if (schemes.includes('adminToken')) return adminSession;
  if (!schemes.includes('apiKey')) return {};
  const key = op.path.startsWith('/api/userAuth') ? f.publishableKey : f.secretKey;
  return {
    'x-api-key': key,
    ...(op.security.every((s) => 'userToken' in s) && { authorization: `Bearer ${f.user.token}` }),
    ...(refresh && { 'x-refresh-token-mode': 'header', 'x-refresh-token': f.user.refreshToken }),
  };
}

/** The body of each copy: the document's example, naming what the fixture made. */
function bodyOf(op: Operation, f: Fixture): unknown {
  if (!op.json) return undefined;
  const body = { ...((op.json.example ?? {}) as Record<string, unknown>) };
  if (typeof body.email === 'string') body.email = f.email;
  if (typeof body.to === 'string') body.to = f.email;
  switch (`${op.method} ${op.path}`) {
    case 'POST /api/userAuth/login':
      return { email: f.user.email, password: PASSWORD };
    case 'POST /api/userAuth/request-password-reset':
      return { email: f.user.email };
    case 'PUT /api/userAuth/change-password':
    case 'POST /api/console/password':
      return { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
    case 'POST /api/console/login':
      return { email: f.account!.email, password: PASSWORD };
    case 'POST /api/console/invitations/inspect':
    case 'POST /api/console/invitations/accept':
      return { token: f.invitation!.token, password: PASSWORD };
    case 'DELETE /api/storage/file':
      return { path: f.file.path };
    case 'POST /api/mail/send':
      return { to: f.email, templateName: f.templateKey, variables: { name: 'Ada' } };
    case 'PUT /api/admin/projects/{projectId}/mail/templates/{key}':
    case 'PUT /api/admin/mail/templates/{key}':
      return { subject: 'Hello {{name}}', text: 'Hi {{name}}' };
  }
  return body;
}

/** The multipart body of an upload's copy (a new FormData each time: a body is read once). */
function multipart(): FormData {
  const form = new FormData();
  form.append('file', new Blob(['a copy'], { type: 'text/plain' }), 'copy.txt');
  return form;
}

async function copy(op: Operation, f: Fixture, base = BASE_URL): Promise<Answer> {
  const path = pathOf(op, f);
  const headers = headersOf(op, f);
  if (op.multipart) {
    const r = await send(`${base}${path}`, {
      method: op.method,
      headers,
      ip: randomIp(),
      body: multipart(),
    });
    return { status: r.status, text: await r.text() };
  }
  return request(op.method, path, headers, bodyOf(op, f), base);
}

/**
 * Whether the store keeps a conditional write of one document exact across processes:
 * PostgreSQL and MongoDB do, FerretDB 1.x does not (it says so in `buildInfo`).
 */
async function storeTakesReplicas(): Promise<boolean> {
  const env = stackEnv();
  if (env.STORE !== 'mongodb') return true;
  const { MongoClient } = await import('mongodb');
  const client = await MongoClient.connect(env.MONGO_URL ?? 'mongodb://127.0.0.1:27017');
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    return info.ferretdbVersion === undefined;
  } finally {
    await client.close();
  }
}

/**
 * The second replica: one more process of each service behind the gateway, as the stack gives
 * it (its database, S3, SMTP), where the store takes replicas, and a gateway in front of them,
 * with the stack's admin token and Redis. Stopped in the reverse order.
 */
const replicas: ServiceProcess[] = [];

async function secondReplica(services: boolean): Promise<string> {
  const env = stackEnv();
  const own = (name: string) => (env[name] ? { [name]: env[name] } : {});
  const extra: Record<string, Record<string, string>> = {
    storage: {
      STORAGE_DRIVER: 's3',
      ...own('S3_ENDPOINT'),
      ...own('S3_REGION'),
      ...own('S3_BUCKET'),
      ...own('S3_ACCESS_KEY_ID'),
      ...own('S3_SECRET_ACCESS_KEY'),
    },
    mail: { ...own('SMTP_HOST'), ...own('SMTP_PORT') },
  };
  // the stack's services, each replaced by a second process where the store takes replicas
  const urls: Record<string, string> = {};
  for (const service of services ? ['auth', 'data', 'storage', 'mail'] : []) {
    const proc = new ServiceProcess(service, await freePort(), extra[service] ?? {});
    await proc.start();
    replicas.push(proc);
    urls[`${service.toUpperCase()}_URL`] = proc.url;
  }
  const gateway = await anotherGateway(urls);
  replicas.push(gateway);
  return gateway.url;
}

const counts = (answers: Answer[]) =>
  answers
    .map((a) => a.status)
    .sort((a, b) => a - b)
    .join(',');

describe('identical requests at once are answered as one after another', () => {
  let second: string;

  beforeAll(async () => {
    const admin = await consoleAccount(true);
    adminSession = await consoleSignIn(admin.email, PASSWORD);
    second = await secondReplica(await storeTakesReplicas());
  }, 90_000);

  afterAll(async () => {
    while (replicas.length > 0) await replicas.pop()!.stop();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const k of globalTemplates) await request('DELETE', `/api/admin/mail/templates/${k}`, admin);
    for (const email of consoleEmails) {
      const found = await request(
        'GET',
        `/api/admin/console/accounts?search=${encodeURIComponent(email)}`,
        admin,
      );
      const items = (JSON.parse(found.text) as { data?: { items?: Array<{ id: string; email: string }> } })
        .data?.items;
      for (const a of (items ?? []).filter((x) => x.email === email))
        await request('DELETE', `/api/admin/console/accounts/${a.id}`, admin);
    }
  });

  const swept = operations.filter((op) => !LEFT_OUT.has(`${op.method} ${op.path}`));

  it('sweeps every operation of the document', () => {
    expect(swept.length).toBeGreaterThan(80);
  });

  it.each(swept.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s: the same statuses at once as in a row, never a 5xx',
    async (_, op) => {
      const inRow: Answer[] = [];
      const f1 = await fixture(op);
      for (let i = 0; i < COPIES; i++) inRow.push(await copy(op, f1));
      const f2 = await fixture(op);
      // every other copy through the second replica
      const atOnce = await Promise.all(
        Array.from({ length: COPIES }, (_, i) => copy(op, f2, i % 2 === 1 ? second : BASE_URL)),
      );
      const failed = [...inRow, ...atOnce].filter((a) => a.status >= 500).map((a) => `${a.status} ${a.text}`);
      expect(failed).toEqual([]);
      expect({ atOnce: counts(atOnce), texts: atOnce.map((a) => a.text.slice(0, 200)) }).toEqual({
        atOnce: counts(inRow),
        texts: expect.any(Array),
      });
    },
  );
});
