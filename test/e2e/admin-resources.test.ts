import { client, MAIL_API_URL } from '../support/e2e';
import { until } from '../support/until';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { canary, dataProject, type DataProject } from './data-support';
import { uploadBytes } from './storage-helpers';

/**
 * Issue 16 through the gateway: what a console needs beyond the admin API of issue 15: a
 * project's documents (RLS bypassed, as its secret key), its files and its mail (previews, test
 * sends, the sent-mail log), each admin write in the audit log, and the admin token and the
 * project checked for every one of them.
 */
const UNKNOWN = '64b7f0c2a1b2c3d4e5f60718';
const PRIVATE = { enabled: true, mode: 'private', ownerField: 'userId' };
const MJML =
  '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{name}}</mj-text></mj-column></mj-section></mj-body></mjml>';

interface Entry {
  action: string;
  actor: { type: string };
  target: { type: string; id: string };
  details: Record<string, unknown> | null;
}

/** The project's audit entries of these actions, once `n` of them have arrived. */
async function auditEntries(p: DataProject, prefix: string, n: number): Promise<Entry[]> {
  const call = client();
  let mine: Entry[] = [];
  // Twice a second: each poll goes through the gateway's per-IP limit.
  await until(
    async () => {
      const r = await call('GET', `/api/admin/projects/${p.id}/audit?limit=100`, { admin: true });
      mine = ((r.body?.data?.items ?? []) as Entry[]).filter((e) => e.action.startsWith(prefix));
      return mine.length >= n;
    },
    20_000,
    `${n} ${prefix}* audit entries`,
    500,
  );
  return mine;
}

describe('documents of a project, as the admin', () => {
  it('lists every user’s documents (RLS bypassed), inserts, edits, trashes and restores, audited', async () => {
    const p = await dataProject();
    await p.register('notes', {
      rls: PRIVATE,
      schema: { fields: [{ key: 'title', type: 'String', required: true }] },
    });
    const [alice, bob] = [await p.user(), await p.user()];
    const secret = canary('bob');
    for (const [u, title] of [
      [alice, 'alice note'],
      [bob, secret],
    ] as const)
      expect(
        (await p.call('POST', '/api/data/notes', { key: p.publishableKey, token: u.token, body: { title } }))
          .status,
      ).toBe(201);
    const base = `/api/admin/projects/${p.id}/documents/notes`;

    const asAlice = await p.call('GET', '/api/data/notes', { key: p.publishableKey, token: alice.token });
    expect(JSON.stringify(asAlice.body)).not.toContain(secret);
    const all = await p.call('GET', base, { admin: true });
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((d: { title: string }) => d.title)).toEqual([secret, 'alice note']);
    const filtered = await p.call('GET', `${base}?userId=${alice.id}&limit=1`, { admin: true });
    expect(filtered.body.data).toMatchObject({ total: 1, limit: 1, items: [{ title: 'alice note' }] });

    const created = await p.call('POST', base, {
      admin: true,
      body: { title: 'from the console', userId: bob.id },
    });
    expect(created.status).toBe(201);
    const id = created.body._id as string;
    const edited = await p.call('PATCH', `${base}/${id}`, { admin: true, body: { title: 'edited' } });
    expect(edited.body).toMatchObject({ success: true, data: { title: 'edited', userId: bob.id } });
    // Bob sees the admin's document as his own: it is the same collection, the same rows.
    const asBob = await p.call('GET', `/api/data/notes/${id}`, { key: p.publishableKey, token: bob.token });
    expect(asBob.body).toMatchObject({ _id: id, title: 'edited' });
    const invalid = await p.call('POST', base, { admin: true, body: { title: 42 } });
    expect([invalid.status, invalid.body.code, invalid.body.success]).toEqual([
      400,
      'VALIDATION_FAILED',
      false,
    ]);

    expect((await p.call('DELETE', `${base}/${id}`, { admin: true })).body).toMatchObject({ data: { id } });
    expect((await p.call('GET', `${base}/${id}`, { admin: true })).status).toBe(404);
    const trash = await p.call('GET', `${base}?include_deleted=true`, { admin: true });
    expect(trash.body.data.total).toBe(3);
    const restored = await p.call('POST', `${base}/${id}/restore`, { admin: true });
    expect(restored.body).toMatchObject({
      message: 'Document restored',
      data: { _id: id, isDeleted: false },
    });

    const users = await p.call('GET', `/api/admin/projects/${p.id}/documents/users`, { admin: true });
    expect([users.status, users.body.code]).toEqual([403, 'USERS_COLLECTION_RESERVED']);

    const entries = await auditEntries(p, 'document.', 4);
    expect(entries.map((e) => e.action)).toEqual([
      'document.restored',
      'document.trashed',
      'document.updated',
      'document.created',
    ]);
    for (const e of entries)
      expect(e).toMatchObject({
        actor: { type: 'platform-admin' },
        target: { type: 'document', id },
        details: { collection: 'notes' },
      });
  });

  it("answers 404 for another project's document and an unknown project, and 401 without the admin token", async () => {
    const a = await dataProject();
    const b = await dataProject();
    await a.register('notes');
    await b.register('notes');
    const bDoc = await b.seed('notes', { title: canary('b') });
    const inA = `/api/admin/projects/${a.id}/documents/notes/${String(bDoc._id)}`;
    for (const [method, path, body] of [
      ['GET', inA, undefined],
      ['PUT', inA, { title: 'x' }],
      ['PATCH', inA, { title: 'x' }],
      ['DELETE', inA, undefined],
      ['POST', `${inA}/restore`, undefined],
    ] as const) {
      const r = await a.call(method, path, { admin: true, ...(body ? { body } : {}) });
      expect([method, r.status, r.body.code]).toEqual([method, 404, 'DOCUMENT_NOT_FOUND']);
    }
    expect(
      (await b.call('GET', `/api/data/notes/${String(bDoc._id)}`, { key: b.secretKey })).body.title,
    ).toBe(bDoc.title);
    const unknown = await a.call('GET', `/api/admin/projects/${UNKNOWN}/documents/notes`, { admin: true });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);

    const base = `/api/admin/projects/${a.id}/documents/notes`;
    const none = await a.call('GET', base);
    const wrong = await a.call('GET', base, { token: 'not-the-admin-token' });
    const key = await a.call('POST', base, { key: a.secretKey, body: { title: 'k' } });
    for (const r of [none, wrong, key]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        success: false,
        code: 'ADMIN_TOKEN_REQUIRED',
        requestId: expect.any(String),
      });
    }
  });
});

describe('files of a project, as the admin', () => {
  it('uploads, lists newest first with name, size, type and a public URL, and deletes, audited', async () => {
    const p = await dataProject();
    const call = client();
    const own = await uploadBytes(
      call,
      p.secretKey,
      Buffer.alloc(100, 7),
      'by-key.bin',
      'application/octet-stream',
    );
    expect(own.status).toBe(201);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello console')], { type: 'text/plain' }), 'hello.txt');
    const up = await call('POST', `/api/admin/projects/${p.id}/files`, { admin: true, rawBody: form });
    expect(up.status).toBe(201);
    expect(up.body.path).toMatch(new RegExp(`^${p.id}/[A-Za-z0-9_-]{22}\\.txt$`));

    const list = await call('GET', `/api/admin/projects/${p.id}/files?limit=1`, { admin: true });
    expect(list.status).toBe(200);
    const [newest] = list.body.data.items as Array<Record<string, unknown>>;
    expect(newest).toMatchObject({
      path: up.body.path,
      originalName: 'hello.txt',
      size: 13,
      contentType: 'text/plain',
      url: up.body.url,
    });
    const rest = await call(
      'GET',
      `/api/admin/projects/${p.id}/files?limit=1&cursor=${encodeURIComponent(list.body.data.nextCursor)}`,
      { admin: true },
    );
    expect(rest.body.data.items.map((f: { path: string }) => f.path)).toEqual([own.body.path]);
    const publicRead = await client()('GET', new URL(String(newest?.url)).pathname);
    expect([publicRead.status, publicRead.body]).toEqual([200, 'hello console']);

    const other = await dataProject();
    const otherList = await call('GET', `/api/admin/projects/${other.id}/files`, { admin: true });
    expect([otherList.status, otherList.body.data.items]).toEqual([200, []]);
    const cross = await call('DELETE', `/api/admin/projects/${other.id}/files/${String(newest?.name)}`, {
      admin: true,
    });
    expect([cross.status, cross.body.code]).toEqual([404, 'FILE_NOT_FOUND']);
    const del = await call('DELETE', `/api/admin/projects/${p.id}/files/${String(newest?.name)}`, {
      admin: true,
    });
    expect(del.body).toMatchObject({ success: true, data: { path: up.body.path } });
    expect((await client()('GET', new URL(String(newest?.url)).pathname)).status).toBe(404);
    const bad = await call('GET', `/api/admin/projects/${p.id}/files?limit=0`, { admin: true });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const withKey = await call('GET', `/api/admin/projects/${p.id}/files`, { key: p.secretKey });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);

    const entries = await auditEntries(p, 'file.', 2);
    expect(entries.map((e) => [e.action, e.target])).toEqual([
      ['file.deleted', { type: 'file', id: up.body.path }],
      ['file.uploaded', { type: 'file', id: up.body.path }],
    ]);
  });
});

describe('mail of a project, as the admin', () => {
  it('previews good MJML, refuses bad MJML with its message, test-sends a template and logs it, audited', async () => {
    const p = await dataProject({ limits: { mailMonthly: 5 } });
    const call = client();
    const base = `/api/admin/projects/${p.id}/mail`;
    const preview = await call('POST', `${base}/preview`, {
      admin: true,
      body: { subject: 'Hi {{name}}', mjml: MJML, variables: { name: 'Ada' } },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.data.subject).toBe('Hi Ada');
    expect(preview.body.data.html).toContain('Hello Ada');
    const broken = await call('POST', `${base}/preview`, {
      admin: true,
      body: { subject: 'S', mjml: '<mjml><mj-body><mj-texxt>x</mj-texxt></mj-body></mjml>' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({
      success: false,
      code: 'INVALID_MJML',
      message: expect.stringContaining('mj-texxt'),
    });

    expect(
      (
        await call('PUT', `${base}/templates/welcome-console`, {
          admin: true,
          body: { subject: 'Welcome {{name}}', mjml: MJML },
        })
      ).status,
    ).toBe(201);
    const to = uniqueAddress('console-test');
    const sent = await call('POST', `${base}/templates/welcome-console/test`, {
      admin: true,
      body: { to, variables: { name: 'Grace' } },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ monthlyUsage: 1, monthlyLimit: 5 });
    const mailpit = new Mailpit(MAIL_API_URL);
    await until(async () => (await mailpit.to(to)).length > 0, 20_000, 'the test mail', 500);
    expect((await mailpit.to(to))[0]?.Subject).toBe('Welcome Grace');

    const log = await call('GET', `${base}/messages`, { admin: true });
    expect(log.status).toBe(200);
    expect(log.body.data.items).toEqual([
      expect.objectContaining({ id: sent.body.data.id, to, templateKey: 'welcome-console', status: 'sent' }),
    ]);
    const otherLog = await call('GET', `/api/admin/projects/${(await dataProject()).id}/mail/messages`, {
      admin: true,
    });
    expect(otherLog.body.data.items).toEqual([]);
    const withKey = await call('GET', `${base}/messages`, { key: p.secretKey });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);

    const [entry] = await auditEntries(p, 'mail.', 1);
    expect(entry).toMatchObject({
      action: 'mail.test_sent',
      target: { type: 'mail-template', id: 'welcome-console' },
      details: { messageId: sent.body.data.id, status: 'sent' },
    });
  });
});
