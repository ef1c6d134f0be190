import { randomBytes } from 'node:crypto';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { BASE_URL, MAIL_API_URL, client, randomIp, send } from '../support/e2e';
import { operations, schemesOf, type Operation } from '../support/openapi-operations';
import { acceptInvitation, invitationToken } from '../support/console-session';
import { dataProject, type DataProject } from './data-support';

/**
 * Tenancy holds for every operation of the OpenAPI document. Two projects are made alike, each
 * with a collection and documents (one in the trash), an end user with a username and a session,
 * a file, a mail template, an owner who is a console member of that project alone and a pending
 * invitation. Then the second project's side (its keys, its end user, its owner's console
 * session) sends every operation, naming what belongs to the first: its project id, its document
 * ids, its user, its file's path, its template, its member and invitation, its end user's access
 * and refresh tokens, its user's email and password. The first project's own end-user token and
 * secret key are tried as admin credentials too. Every answer must:
 * - never be a 5xx (and be one the document describes: `send` holds every answer to it);
 * - never hold what only the first project's own callers may read (its documents' text, its
 *   file's content, its template, its name, its keys, its user's and owner's emails);
 * - be a refusal (a 4xx) when the request names something of the first project's, and no
 *   credential of the second one's may read or change it.
 * Afterwards everything of the first project reads as before (documents, trash, users, members,
 * invitations, templates, files, mail log, usage), its keys and its user's tokens still work, and
 * no mail went out with its template. The failures are collected and reported together.
 */

const PASSWORD = 'a long enough passphrase 42';
const mailpit = new Mailpit(MAIL_API_URL);
const call = client();

/** What one project of the sweep holds, as its own callers know it. */
interface Tenant {
  p: DataProject;
  /** Text that only this project's own callers may ever read. */
  secrets: string[];
  user: { id: string; email: string; username: string; token: string; refreshToken: string };
  docId: string;
  trashedId: string;
  file: { path: string; name: string };
  templateKey: string;
  owner: { accountId: string; email: string; session: Record<string, string> };
  invitationId: string;
}

function must<T>(r: { status: number; body: unknown }, status: number[], what: string): T {
  if (!status.includes(r.status)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

const admin = { admin: true };

async function makeTenant(label: string): Promise<Tenant> {
  const canary = `CANARY-${label}-${randomBytes(5).toString('hex')}`;
  const p = await dataProject();
  const name = `${canary}-project`;
  must(await call('PATCH', `/api/admin/projects/${p.id}`, { ...admin, body: { name } }), [200], 'rename');
  await p.register('notes', { schema: { fields: [{ key: 'title', type: 'String' }] } });
  const doc = await p.seed('notes', { title: `${canary}-doc` });
  const trashed = await p.seed('notes', { title: `${canary}-trashed` });
  must(await call('DELETE', `/api/data/notes/${trashed._id}`, { key: p.secretKey }), [200, 204], 'trash');

  const email = uniqueAddress(`iso-user-${label.toLowerCase()}`);
  const username = `iso${randomBytes(5).toString('hex')}`;
  const signup = must<any>(
    await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      headers: { 'x-refresh-token-mode': 'header' },
      body: { email, password: PASSWORD, username },
    }),
    [201],
    'signup',
  );

  const form = new FormData();
  form.append('file', new Blob([`${canary}-file`], { type: 'text/plain' }), 'note.txt');
  const stored = must<{ path: string }>(
    await call('POST', '/api/storage/upload', { key: p.secretKey, rawBody: form }),
    [201],
    'upload',
  );

  const templateKey = `iso-${label.toLowerCase()}-${randomBytes(3).toString('hex')}`;
  must(
    await call('PUT', `/api/admin/projects/${p.id}/mail/templates/${templateKey}`, {
      ...admin,
      body: { subject: `${canary}-subject {{name}}`, text: `${canary}-text {{name}}` },
    }),
    [200, 201],
    'template',
  );

  // an owner of this project alone: invited, and signed in by accepting the invitation
  const ownerEmail = uniqueAddress(`iso-owner-${label.toLowerCase()}`);
  must(
    await call('POST', `/api/admin/projects/${p.id}/members`, {
      ...admin,
      body: { email: ownerEmail, role: 'owner' },
    }),
    [201],
    'invite the owner',
  );
  const session = await acceptInvitation(await invitationToken(mailpit, ownerEmail), PASSWORD);

  const pendingEmail = uniqueAddress(`iso-pending-${label.toLowerCase()}`);
  const invitation = must<{ data: { id: string } }>(
    await call('POST', `/api/admin/projects/${p.id}/members`, {
      ...admin,
      body: { email: pendingEmail, role: 'viewer' },
    }),
    [201],
    'invite a viewer',
  );
  const members = must<{ data: { members: Array<{ accountId: string; email: string }> } }>(
    await call('GET', `/api/admin/projects/${p.id}/members`, admin),
    [200],
    'members',
  );
  const accountId = members.data.members.find((m) => m.email === ownerEmail)?.accountId;
  if (!accountId) throw new Error(`the owner is not a member: ${JSON.stringify(members)}`);

  return {
    p,
    secrets: [canary, p.secretKey, p.publishableKey, email, ownerEmail, pendingEmail],
    user: {
      id: String(signup.user._id),
      email,
      username,
      token: signup.accessToken as string,
      refreshToken: signup.refreshToken as string,
    },
    docId: String(doc._id),
    trashedId: String(trashed._id),
    file: { path: stored.path, name: stored.path.slice(stored.path.indexOf('/') + 1) },
    templateKey,
    owner: { accountId, email: ownerEmail, session },
    invitationId: invitation.data.id,
  };
}

/**
 * Everything of a project its own callers can read, for comparing before and after the sweep.
 * Left out: the gateway's request counts (these reads add to them) and the audit log (the
 * first project's reads here add to it; the refusals do not, and are not its to record).
 */
async function snapshot(t: Tenant): Promise<Record<string, unknown>> {
  const base = `/api/admin/projects/${t.p.id}`;
  const reads: Array<[string, string, Parameters<typeof call>[2]]> = [
    ['project', base, admin],
    ['collections', `${base}/collections`, admin],
    ['notes', `${base}/collections/notes`, admin],
    ['documents', `${base}/documents/notes?limit=100`, admin],
    ['withTrash', `${base}/documents/notes?limit=100&include_deleted=true`, admin],
    ['document', `/api/data/notes/${t.docId}`, { key: t.p.secretKey }],
    ['users', `${base}/users`, admin],
    ['usersSchema', `${base}/users-schema`, admin],
    ['me', '/api/userAuth/me', { key: t.p.publishableKey, token: t.user.token }],
    ['profile', `/api/userAuth/public/${t.user.username}`, { key: t.p.publishableKey }],
    ['members', `${base}/members`, admin],
    ['templates', `${base}/mail/templates`, admin],
    ['template', `${base}/mail/templates/${t.templateKey}`, admin],
    ['messages', `${base}/mail/messages`, admin],
    ['mailUsage', `${base}/mail/usage`, admin],
    ['files', `${base}/files`, admin],
    ['file', `/files/${t.file.path}`, {}],
    ['storageUsage', `${base}/storage/usage`, admin],
    ['dataUsage', `${base}/data/usage`, admin],
  ];
  const out: Record<string, unknown> = {};
  for (const [label, path, opts] of reads) {
    const r = await call('GET', path, opts);
    out[label] = { status: r.status, body: r.body };
  }
  return out;
}

/** A request of the sweep, with what it must get. */
interface Probe {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
  /** It names something of the victim's: only a refusal will do. */
  refuse: boolean;
}

const key = (op: Operation) => `${op.method} ${op.path}`;

/**
 * Left out: signing out the attacker's console session would end the rest of the sweep (the
 * session is its credential), and it names nothing of anyone else's.
 */
const LEFT_OUT = new Set(['POST /api/console/logout']);

/** A body for the operation, naming the victim's things where it names anything. */
function bodyFor(op: Operation, victim: Tenant): { body?: string | FormData; names: boolean } {
  if (op.multipart) {
    const form = new FormData();
    form.append('file', new Blob(['from the other project'], { type: 'text/plain' }), 'other.txt');
    return { body: form, names: false };
  }
  if (!op.json) return { names: false };
  const example = { ...((op.json.example ?? {}) as Record<string, unknown>) };
  let names = false;
  if (typeof example.email === 'string') example.email = uniqueAddress('iso-attacker');
  switch (key(op)) {
    case 'POST /api/userAuth/login':
      Object.assign(example, { email: victim.user.email, password: PASSWORD });
      names = true;
      break;
    case 'DELETE /api/storage/file':
      example.path = victim.file.path;
      names = true;
      break;
    case 'POST /api/mail/send':
      Object.assign(example, { to: uniqueAddress('iso-mail'), templateName: victim.templateKey });
      names = true;
      break;
  }
  return { body: JSON.stringify(example), names };
}

/**
 * Phase 1: the operations a project key opens (`/api/userAuth`, `/api/data`, `/api/storage`,
 * `/api/mail`), sent with the attacker's keys, with its end user's token, and with the victim's
 * end user's token beside the attacker's key; path parameters name the victim's things.
 */
function keyProbes(op: Operation, attacker: Tenant, victim: Tenant): Probe[] {
  const schemes = schemesOf(op);
  if (!schemes.includes('apiKey')) return [];
  const keys = op.path.startsWith('/api/userAuth')
    ? [attacker.p.publishableKey]
    : [attacker.p.secretKey, attacker.p.publishableKey];
  const takesUser = schemes.includes('userToken');
  const userOnly = op.security.every((s) => 'userToken' in s);
  const values: Record<string, string> = {
    collectionName: 'notes',
    id: op.path.endsWith('/restore') ? victim.trashedId : victim.docId,
    username: victim.user.username,
  };
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? 'x');
  const namesByPath = op.pathParams.some((n) => n === 'id' || n === 'username');
  const extra: Array<[string, Record<string, string>, boolean]> = [];
  // a refresh with it must be refused; a logout answers 200 for any token it does not know
  // (docs/api.md), so what tells there is that the victim's session lives on (checked at the end)
  if (op.path === '/api/userAuth/refresh-token' || op.path === '/api/userAuth/logout')
    extra.push([
      "the victim's refresh token",
      { 'x-refresh-token-mode': 'header', 'x-refresh-token': victim.user.refreshToken },
      op.path.endsWith('/refresh-token'),
    ]);
  const probes: Probe[] = [];
  for (const k of keys) {
    const as: Array<[string, Record<string, string>, boolean]> = [];
    if (!userOnly) as.push(['key', { 'x-api-key': k }, false]);
    if (takesUser) {
      as.push([
        "key + own user's token",
        { 'x-api-key': k, authorization: `Bearer ${attacker.user.token}` },
        false,
      ]);
      as.push([
        "key + the victim's user token",
        { 'x-api-key': k, authorization: `Bearer ${victim.user.token}` },
        true,
      ]);
    }
    for (const [label, headers, names] of extra) as.push([label, { 'x-api-key': k, ...headers }, names]);
    for (const [label, headers, namesByCredential] of as) {
      const { body, names } = bodyFor(op, victim);
      probes.push({
        label: `${key(op)} with the attacker's ${k.slice(0, 8)} ${label}`,
        method: op.method,
        path,
        headers: { ...headers, ...(typeof body === 'string' && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body }),
        refuse: namesByPath || names || namesByCredential,
      });
    }
  }
  // the victim's end-user token alone, without any key
  if (takesUser)
    probes.push({
      label: `${key(op)} with the victim's user token and no key`,
      method: op.method,
      path,
      headers: { authorization: `Bearer ${victim.user.token}` },
      refuse: true,
    });
  return probes;
}

/** Path values naming the victim's things inside a project's admin paths. */
function adminValues(op: Operation, projectId: string, victim: Tenant): Record<string, string> {
  return {
    projectId,
    collectionName: 'notes',
    name: op.path.includes('/files/') ? victim.file.name : 'notes',
    id: op.path.endsWith('/restore') ? victim.trashedId : victim.docId,
    userId: victim.user.id,
    key: victim.templateKey,
    accountId: victim.owner.accountId,
    invitationId: victim.invitationId,
  };
}

/**
 * Phase 2: every admin operation on the victim's project, as the attacker's owner (a console
 * member of the attacker's project alone), with the victim's own end-user token as a bearer
 * token, and with the victim's and the attacker's secret keys. All must be refused.
 */
function victimProjectProbes(op: Operation, attacker: Tenant, victim: Tenant): Probe[] {
  if (!schemesOf(op).includes('adminToken') || !op.pathParams.includes('projectId')) return [];
  const values = adminValues(op, victim.p.id, victim);
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? 'x');
  const as: Array<[string, Record<string, string>]> = [
    ["the attacker's owner session", attacker.owner.session],
    ["the victim's end-user token", { authorization: `Bearer ${victim.user.token}` }],
    ["the victim's secret key", { 'x-api-key': victim.p.secretKey }],
    ["the attacker's secret key", { 'x-api-key': attacker.p.secretKey }],
  ];
  return as.map(([label, headers]) => {
    const { body } = bodyFor(op, victim);
    return {
      label: `${key(op)} on the victim's project with ${label}`,
      method: op.method,
      path,
      headers: { ...headers, ...(typeof body === 'string' && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body }),
      refuse: true,
    };
  });
}

/**
 * Phase 3: the admin operations of the attacker's own project whose path names a document, a
 * user, a file, a template, a member or an invitation, as its owner, naming the victim's. A
 * template key is the project's own name space (writing it makes the attacker's template), so
 * only it may be answered; the rest must be refused. The public file URL is tried the same way.
 */
const RESOURCE_PARAMS = new Set(['id', 'userId', 'accountId', 'invitationId', 'key']);

function ownProjectProbes(op: Operation, attacker: Tenant, victim: Tenant): Probe[] {
  if (!op.pathParams.includes('projectId')) return [];
  const isFiles = op.path.includes('/files/');
  const resources = op.pathParams.filter((n) => RESOURCE_PARAMS.has(n) || (n === 'name' && isFiles));
  if (resources.length === 0) return [];
  const publicFile = op.security.length === 0 && op.path.startsWith('/files/');
  if (!publicFile && !schemesOf(op).includes('adminToken')) return [];
  const values = adminValues(op, attacker.p.id, victim);
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? 'x');
  const { body } = bodyFor(op, victim);
  const headers = publicFile ? {} : attacker.owner.session;
  return [
    {
      label: `${key(op)} on the attacker's project naming the victim's ${resources.join(', ')}`,
      method: op.method,
      path,
      headers: { ...headers, ...(typeof body === 'string' && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body }),
      refuse: !resources.every((n) => n === 'key'),
    },
  ];
}

/**
 * Phase 4: the operations that name no project (the platform's: projects, accounts, signing
 * keys, global templates and messages, the audit log; the console's own), as the attacker's
 * owner. A reader may answer with what is the attacker's; any change to the platform is refused.
 * Path parameters name the victim's owner account and template.
 */
function platformProbes(op: Operation, attacker: Tenant, victim: Tenant): Probe[] {
  const schemes = schemesOf(op);
  if (op.pathParams.includes('projectId') || !schemes.includes('consoleSession')) return [];
  if (LEFT_OUT.has(key(op))) return [];
  const values: Record<string, string> = { accountId: victim.owner.accountId, key: victim.templateKey };
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? 'x');
  const { body } = bodyFor(op, victim);
  const platformWide = schemes.includes('adminToken');
  // what a member may do beside reading: create a project of their own, change their own password
  const own = new Set(['POST /api/admin/projects', 'POST /api/console/password']);
  return [
    {
      label: `${key(op)} as the attacker's owner`,
      method: op.method,
      path,
      headers: {
        ...attacker.owner.session,
        ...(typeof body === 'string' && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body }),
      refuse: platformWide && op.method !== 'GET' && !own.has(key(op)),
    },
  ];
}

function verdict(probe: Probe, status: number, text: string, victim: Tenant): string[] {
  const wrong: string[] = [];
  if (status >= 500) wrong.push(`a ${status}: ${text.slice(0, 300)}`);
  if (probe.refuse && status < 400)
    wrong.push(`a ${status} where only a refusal will do: ${text.slice(0, 300)}`);
  for (const s of victim.secrets)
    if (text.includes(s))
      wrong.push(`the answer (${status}) holds the victim's ${s.slice(0, 12)}…: ${text.slice(0, 300)}`);
  return wrong;
}

describe("one project's callers against every operation naming another project's things", () => {
  let victim: Tenant;
  let attacker: Tenant;
  let before: Record<string, unknown>;
  let victimMails: number;

  beforeAll(async () => {
    victim = await makeTenant('Victim');
    attacker = await makeTenant('Attacker');
    before = await snapshot(victim);
    victimMails = (await mailpit.to(victim.user.email)).length;
  }, 120_000);

  const phases: Array<[string, (op: Operation, a: Tenant, v: Tenant) => Probe[]]> = [
    ["with the attacker's keys and tokens", keyProbes],
    ["on the victim's project", victimProjectProbes],
    ["on the attacker's project, naming the victim's things", ownProjectProbes],
    ["on the platform, as the attacker's owner", platformProbes],
  ];

  it('sweeps every operation that a key, a token or a console session opens', () => {
    const swept = new Set(
      operations
        .filter((op) => phases.some(([, probes]) => probes(op, attacker, victim).length > 0))
        .map(key),
    );
    // what the victim's own callers read, to compare with at the end, all answered: its keys and
    // its user's token work, so a refusal below is the project's line, not a dead credential
    expect(Object.entries(before).filter(([, r]) => (r as { status: number }).status !== 200)).toEqual([]);
    const guarded = operations.filter((op) => op.security.length > 0 && !LEFT_OUT.has(key(op))).map(key);
    expect(guarded.filter((k) => !swept.has(k))).toEqual([]);
    // a path parameter the sweep does not know would be sent as a placeholder, naming nothing
    const known = new Set([...Object.keys(adminValues(operations[0]!, '', victim)), 'username']);
    expect(operations.flatMap((op) => op.pathParams.filter((n) => !known.has(n)))).toEqual([]);
    expect(swept.size).toBeGreaterThan(70);
  });

  it.each(phases)('%s: refused, never a 5xx, never the victim’s data', async (_, probesOf) => {
    const failures: string[] = [];
    for (const op of operations)
      for (const probe of probesOf(op, attacker, victim)) {
        try {
          const r = await send(`${BASE_URL}${probe.path}`, {
            method: probe.method,
            headers: probe.headers,
            ip: randomIp(),
            ...(probe.body !== undefined && { body: probe.body }),
          });
          for (const w of verdict(probe, r.status, await r.text(), victim))
            failures.push(`${probe.label}: ${w}`);
        } catch (e) {
          failures.push(`${probe.label}: ${(e as Error).message.slice(0, 400)}`);
        }
      }
    expect(failures).toEqual([]);
  });

  it("leaves the victim's project as it was: its data, its keys, its user's tokens, its mail", async () => {
    expect(await snapshot(victim)).toEqual(before);
    // its user's refresh token was sent to sign out with the attacker's key: it still works
    const refreshed = await call('POST', '/api/userAuth/refresh-token', {
      key: victim.p.publishableKey,
      headers: { 'x-refresh-token-mode': 'header', 'x-refresh-token': victim.user.refreshToken },
    });
    expect(refreshed.status).toBe(200);
    const login = await call('POST', '/api/userAuth/login', {
      key: victim.p.publishableKey,
      body: { email: victim.user.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
    // no mail went out with its template, and none to its user; the search finds a template's
    // mail when one is sent (the attacker's own, with its own key)
    expect(await mailpit.search(`"${victim.secrets[0]!}-subject"`)).toEqual([]);
    const sent = await call('POST', '/api/mail/send', {
      key: attacker.p.secretKey,
      body: {
        to: uniqueAddress('iso-control'),
        templateName: attacker.templateKey,
        variables: { name: 'x' },
      },
    });
    expect(sent.status).toBe(200);
    const control = `"${attacker.secrets[0]!}-subject"`;
    for (const until = Date.now() + 10_000; Date.now() < until;)
      if ((await mailpit.search(control)).length > 0) break;
      else await new Promise((r) => setTimeout(r, 200));
    expect((await mailpit.search(control)).length).toBe(1);
    expect((await mailpit.to(victim.user.email)).length).toBe(victimMails);
    // its owner's console session still sees its project
    const session = await send(`${BASE_URL}/api/console/session`, { headers: victim.owner.session });
    expect(await session.text()).toContain(victim.p.id);
  });
});
