import { ADMIN_TOKEN, BASE_URL, randomIp, send } from '../support/e2e';
import { operations, propertiesOf, schemesOf, type Operation } from '../support/openapi-operations';
import { consoleSignIn } from '../support/console-session';
import { dataProject, type DataProject } from './data-support';

/**
 * Every operation of the OpenAPI document the gateway serves, given input a client can get wrong:
 * path parameters that are not what they name, query parameters of the wrong shape (repeated,
 * bracketed, out of range), list filters that do not parse, bodies that are not JSON, not an
 * object, of the wrong type field by field, nested past any sensible depth, or sent as the wrong
 * content type, multipart bodies that break off, and credentials of the right kind with the wrong
 * content; sent as a platform admin's console session, with the project's key and as an end user.
 * Each answer must be a 4xx (or a 2xx where the input happens to be valid) in the contract's error
 * body, never a 5xx, and must be one the document describes (`send` holds every answer to it).
 * The failures are collected and reported together, request by request.
 */

/**
 * Operations left out: rotating the platform's signing key has no input to get wrong, and its
 * valid call changes every service's keys for the files that run after this one.
 */
const LEFT_OUT = new Set(['POST /api/admin/signing-keys/rotate']);

/** The mail template the sweep may create (on its project and globally); removed at the end. */
const TEMPLATE_KEY = `sweep-${Date.now().toString(36)}`;
/** A console account the sweep's valid-looking bodies may create; removed at the end. */
const ACCOUNT_EMAIL = `sweep.made.${Date.now().toString(36)}@example.test`;

/** An address of this run's own, so that no per-account limit (kept in Redis) carries over. */
const RUN_EMAIL = `sweep.${Date.now().toString(36)}@example.test`;

/** The body each field's probes start from: the document's example, made this run's own. */
function exampleOf(op: Operation): Record<string, unknown> {
  const example = { ...((op.json?.example ?? {}) as Record<string, unknown>) };
  if (typeof example.email === 'string') example.email = RUN_EMAIL;
  if (op.method === 'POST' && op.path === '/api/admin/console/accounts') example.email = ACCOUNT_EMAIL;
  return example;
}

/** Operations that could take the fixture project's keys or the project itself: run on their own. */
const ON_A_SPARE_PROJECT = new Set([
  'POST /api/admin/projects/{projectId}/keys/rotate',
  'DELETE /api/admin/projects/{projectId}',
]);

const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

/** Values of every JSON type and a few that break naive code, for one field at a time. */
const FIELD_VALUES: unknown[] = [
  null,
  12345,
  -1.5e308,
  'sweep',
  '',
  'x'.repeat(20_000),
  true,
  [],
  ['a', { b: 1 }],
  {},
  { $gt: '' },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown, // an own key (a literal sets the prototype)
  nested(200, 'deep'),
];

/** Whole bodies that are not what any operation takes. */
const RAW_BODIES: Array<[label: string, body: string]> = [
  ['not JSON', '{"a":'],
  ['an array', '[]'],
  ['null', 'null'],
  ['a string', '"sweep"'],
  ['a number', '42'],
  ['a huge number', '1e400'],
  ['arrays nested 5,000 deep', `${'['.repeat(5_000)}1${']'.repeat(5_000)}`],
  ['objects nested 5,000 deep', `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`],
  ['a __proto__ key', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'],
  ['a duplicate key', '{"a":1,"a":{"b":2}}'],
];

/**
 * Values a path parameter should not have (percent-encoded as a client would send them). Not
 * `%2e%2e`: the client's URL parser reads it as `..` and sends the request to the parent path.
 */
const BAD_PATH_VALUES = [
  'x',
  'ZZZZZZZZZZZZZZZZZZZZZZZZ',
  '000000000000000000000000',
  'a'.repeat(300),
  '%00',
  '%20',
  '$where',
  '%E2%80%AE',
];

/** Query strings of the wrong shape, given the parameter's name. */
const badQueries = (name: string): string[] => [
  `${name}=`,
  `${name}=x`,
  `${name}=-1`,
  `${name}=0`,
  `${name}=1e400`,
  `${name}=99999999999999999999999`,
  `${name}=%00`,
  `${name}=1&${name}=2`,
  `${name}[a]=1`,
  `${name}[]=1`,
  `${name}=${'z'.repeat(5_000)}`,
];

/** Filters a client can get wrong on a document list. */
const BAD_FILTERS = [
  'title_regex=(',
  'title_regex=(a+)+$',
  'title_in=',
  'title_in=a,,b',
  'title_gt=',
  'title[$where]=1',
  'title[$ne]=1',
  '_id_gt=zz',
  'createdAt_gte=not-a-date',
  'no.such.field=1',
  '$or=1',
  'sort=-',
  'sort=a,b,c,d,e,f',
  'sort=%00',
];

/** Credentials of the right kind and the wrong content. */
const BAD_CREDENTIALS: Array<[label: string, headers: Record<string, string>]> = [
  ['a made-up secret key', { 'x-api-key': `sk_live_${'0'.repeat(40)}` }],
  ['a key of another shape', { 'x-api-key': 'not a key \u00e9' }],
  ['a key past any length', { 'x-api-key': `pk_live_${'a'.repeat(8_000)}` }],
  ['a bearer token that is not a JWT', { authorization: 'Bearer a.b.c' }],
  ['an empty bearer token', { authorization: 'Bearer ' }],
  ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ['a made-up console cookie', { cookie: 'baas_console=garbage', 'x-csrf-token': 'garbage' }],
];

interface Fixture {
  p: DataProject;
  spare: DataProject;
  user: { token: string; id: string };
  docId: string;
  /** A platform admin's console session: its cookie and CSRF token headers. */
  console: Record<string, string>;
}

/** A request of the sweep: what it is, for the report. */
interface Probe {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * The credentials each probe of an operation is sent with: a platform admin's console session,
 * the project's key (the publishable one for /api/userAuth) and, where an end user's token is
 * needed or can be sent, the key with a user's token. An operation that takes either way is swept
 * both ways (row-level security runs only for a user).
 */
function credentials(op: Operation, f: Fixture, project: DataProject): Array<Record<string, string>> {
  const schemes = schemesOf(op);
  if (schemes.includes('consoleSession')) return [f.console];
  if (!schemes.includes('apiKey')) return [{}];
  const key = op.path.startsWith('/api/userAuth') ? project.publishableKey : project.secretKey;
  const asUser = { 'x-api-key': key, authorization: `Bearer ${f.user.token}` };
  if (op.security.every((s) => 'userToken' in s)) return [asUser];
  if (op.security.some((s) => 'userToken' in s)) return [{ 'x-api-key': key }, asUser];
  return [{ 'x-api-key': key }];
}

/** A value for each path parameter that names something that exists (or is at least well formed). */
function goodPathValue(name: string, op: Operation, f: Fixture, project: DataProject): string {
  switch (name) {
    case 'projectId':
      return project.id;
    case 'collectionName':
      return 'notes';
    case 'name':
      return op.path.includes('/collections/') ? 'notes' : 'sweep.txt';
    case 'id':
      return f.docId;
    case 'userId':
      return f.user.id;
    case 'username':
      return 'nobody';
    case 'key':
      return TEMPLATE_KEY;
    default:
      return 'abcdefabcdefabcdefabcdef';
  }
}

function probesFor(op: Operation, f: Fixture): Probe[] {
  const project = ON_A_SPARE_PROJECT.has(`${op.method} ${op.path}`) ? f.spare : f.p;
  const sets = credentials(op, f, project);
  return sets.flatMap((auth, i) => probesWith(op, f, project, auth, i === 0 ? '' : ' (as a user)'));
}

function probesWith(
  op: Operation,
  f: Fixture,
  project: DataProject,
  auth: Record<string, string>,
  as: string,
): Probe[] {
  const id = `${op.method} ${op.path}${as}`;
  const good: Record<string, string> = {};
  for (const name of op.pathParams) good[name] = goodPathValue(name, op, f, project);
  const pathWith = (values: Record<string, string>) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '');
  const jsonHeaders = { ...auth, 'content-type': 'application/json' };
  const probes: Probe[] = [];
  const base = pathWith(good);

  // a destructive operation is only given input that must be refused
  const destructive = ON_A_SPARE_PROJECT.has(`${op.method} ${op.path}`);
  for (const name of op.pathParams)
    for (const bad of BAD_PATH_VALUES)
      probes.push({
        label: `${id}: path ${name}=${bad.slice(0, 30)}`,
        method: op.method,
        path: pathWith({ ...good, [name]: bad }),
        headers: auth,
        // a valid body where the operation is the fixture project's, so that the path is what
        // is wrong; elsewhere (platform-wide templates, accounts) nothing valid is sent with it
        ...(op.json && {
          headers: jsonHeaders,
          body: JSON.stringify(op.pathParams.includes('projectId') ? exampleOf(op) : {}),
        }),
      });
  const queries = op.query.flatMap(badQueries);
  // a document list also takes filters on the collection's fields (not named in the document)
  if (op.method === 'GET' && op.path.endsWith('/{collectionName}')) queries.push(...BAD_FILTERS);
  for (const q of queries)
    probes.push({
      label: `${id}: query ${q.slice(0, 40)}`,
      method: op.method,
      path: `${base}?${q}`,
      headers: auth,
    });
  // credentials that are not what they claim to be, where the operation takes any
  if (Object.keys(auth).length > 0 && as === '')
    for (const [label, headers] of BAD_CREDENTIALS)
      probes.push({ label: `${id}: ${label}`, method: op.method, path: base, headers });
  if (op.json) {
    for (const [label, body] of RAW_BODIES)
      probes.push({
        label: `${id}: body ${label}`,
        method: op.method,
        path: base,
        headers: jsonHeaders,
        body,
      });
    if (!destructive) {
      const example = exampleOf(op);
      for (const field of propertiesOf(op.json.schema))
        for (const value of FIELD_VALUES)
          probes.push({
            label: `${id}: ${field}=${JSON.stringify(value)?.slice(0, 40)}`,
            method: op.method,
            path: base,
            headers: jsonHeaders,
            body: JSON.stringify({ ...example, [field]: value }),
          });
    }
    probes.push(
      {
        label: `${id}: JSON sent as text/plain`,
        method: op.method,
        path: base,
        headers: { ...auth, 'content-type': 'text/plain' },
        body: JSON.stringify(exampleOf(op)),
      },
      {
        label: `${id}: a body in an unknown encoding`,
        method: op.method,
        path: base,
        headers: { ...jsonHeaders, 'content-encoding': 'gzip' },
        body: 'not gzip at all',
      },
      {
        label: `${id}: a body in a charset that is not UTF-8`,
        method: op.method,
        path: base,
        headers: { ...auth, 'content-type': 'application/json; charset=latin1' },
        body: Buffer.from('{"name":"caf\xe9"}', 'latin1'),
      },
    );
  }
  if (op.multipart) {
    const boundary = 'sweepboundary';
    const mp = (body: string, type = `multipart/form-data; boundary=${boundary}`): Probe => ({
      label: `${id}: multipart ${JSON.stringify(body.slice(0, 40))} (${type.slice(0, 40)})`,
      method: op.method,
      path: base,
      headers: { ...auth, 'content-type': type },
      body,
    });
    const part = (name: string, filename: string | undefined, content: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${
        filename === undefined ? '' : `; filename="${filename}"`
      }\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`;
    probes.push(
      mp(''),
      mp('not multipart at all'),
      mp(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nbroken off`),
      mp(`${part('file', 'a.txt', 'x')}`), // no closing boundary
      mp(`${part('notfile', undefined, 'x')}--${boundary}--\r\n`),
      mp(`${part('file', '', 'x')}--${boundary}--\r\n`),
      mp(`${part('file', '../../etc/passwd', 'x')}--${boundary}--\r\n`),
      mp(`${part('file', 'a'.repeat(2_000), 'x')}--${boundary}--\r\n`),
      mp(`${part('file', 'a.txt', 'x')}${part('file', 'b.txt', 'y')}--${boundary}--\r\n`),
      mp(`${part('file', 'a.txt', 'x')}--${boundary}--\r\n`, 'multipart/form-data'),
      mp(`${part('file', 'a.txt', 'x')}--${boundary}--\r\n`, 'multipart/form-data; boundary='),
      mp(`${part('file', 'a.txt', 'x')}--${boundary}--\r\n`, `multipart/mixed; boundary=${boundary}`),
    );
  }
  return probes;
}

const SESSION_EMAIL = `sweep.session.${Date.now().toString(36)}@example.test`;

/**
 * A platform admin's console session, as its headers (the cookie, and the CSRF token a change
 * needs). The sweep's admin requests go with it rather than the admin token: the admin limit
 * counts per caller, and the other files' requests with the token keep their own count.
 */
async function consoleSession(): Promise<Record<string, string>> {
  const email = SESSION_EMAIL;
  const password = 'a long enough passphrase 42';
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const made = await send(`${BASE_URL}/api/admin/console/accounts`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ email, password, platformAdmin: true }),
  });
  if (made.status !== 201) throw new Error(`console account: ${made.status} ${await made.text()}`);
  return consoleSignIn(email, password);
}

/** What is wrong with an answer, or undefined when it is a refusal (or a success) as it should be. */
function verdict(status: number, text: string): string | undefined {
  if (status >= 500) return `a ${status}: ${text.slice(0, 300)}`;
  if (status < 400) return undefined;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `a ${status} whose body is not JSON: ${text.slice(0, 200)}`;
  }
  const ok =
    body?.success === false &&
    typeof body.code === 'string' &&
    typeof body.message === 'string' &&
    typeof body.error === 'string' &&
    typeof body.requestId === 'string';
  return ok ? undefined : `a ${status} without the contract's error body: ${text.slice(0, 200)}`;
}

describe('bad input to every operation of the OpenAPI document', () => {
  let f: Fixture;

  beforeAll(async () => {
    const p = await dataProject();
    await p.register('notes', { schema: { fields: [{ key: 'title', type: 'String' }] } });
    const doc = await p.seed('notes', { title: 'kept' });
    const spare = await dataProject();
    f = { p, spare, user: await p.user(), docId: String(doc._id), console: await consoleSession() };
  });

  afterAll(async () => {
    // what the sweep made outside its projects: its global template and its console accounts
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    await send(`${BASE_URL}/api/admin/mail/templates/${TEMPLATE_KEY}`, { method: 'DELETE', headers: admin });
    for (const email of [ACCOUNT_EMAIL, SESSION_EMAIL]) {
      const found = await send(`${BASE_URL}/api/admin/console/accounts?search=${encodeURIComponent(email)}`, {
        headers: admin,
      });
      const page = (await found.json()) as { data?: { items?: Array<{ id: string; email: string }> } };
      const list = page.data?.items ?? [];
      for (const a of list.filter((x) => x.email === email))
        await send(`${BASE_URL}/api/admin/console/accounts/${a.id}`, { method: 'DELETE', headers: admin });
    }
  });

  it('sweeps every operation that takes input (so a new route is swept too)', () => {
    expect(operations.length).toBeGreaterThan(80);
    const withInput = operations.filter(
      (op) => op.pathParams.length + op.query.length > 0 || op.json || op.multipart,
    );
    expect(withInput.length).toBeGreaterThan(70);
    for (const op of withInput) expect([op.path, probesFor(op, f).length > 0]).toEqual([op.path, true]);
  });

  const swept = operations.filter((op) => !LEFT_OUT.has(`${op.method} ${op.path}`));
  // the destructive ones last, on their own project
  swept.sort(
    (a, b) =>
      Number(ON_A_SPARE_PROJECT.has(`${a.method} ${a.path}`)) -
      Number(ON_A_SPARE_PROJECT.has(`${b.method} ${b.path}`)),
  );

  it.each(swept.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s: a 4xx in the error body, never a 5xx',
    async (_, op) => {
      const failures: string[] = [];
      for (const probe of probesFor(op, f)) {
        try {
          const r = await send(`${BASE_URL}${probe.path}`, {
            method: probe.method,
            headers: probe.headers ?? {},
            ip: randomIp(),
            ...(probe.body !== undefined && { body: probe.body }),
          });
          const wrong = verdict(r.status, await r.text());
          if (wrong) failures.push(`${probe.label}: ${wrong}`);
        } catch (e) {
          failures.push(`${probe.label}: ${(e as Error).message.slice(0, 400)}`);
        }
      }
      expect(failures).toEqual([]);
    },
  );
});
