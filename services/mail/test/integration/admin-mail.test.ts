import { encodeTimeKeyset, type EventEnvelope, type ProjectId } from '@baas/common';
import { requireInfra, storeNeed } from '../../../../test/support/infra';
import {
  call,
  newProjectId,
  randomHexId,
  sendAs,
  startHarness,
  waitUntil,
  type Harness,
} from '../support/harness';
import { uniqueAddress } from '../support/mailpit';

/**
 * Issue 16: mail for a console under the admin API: previews that render without sending, test
 * sends of a project's template (counted against its month, audited with their status), and the
 * sent-mail log, newest first by cursor (runs on TEST_STORE: postgres or mongodb).
 */
let h: Harness;
const audits: EventEnvelope<'audit.recorded'>[] = [];
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness();
  const sub = h.nc.subscribe('baas.events.audit.recorded');
  void (async () => {
    for await (const m of sub) audits.push(m.json<EventEnvelope<'audit.recorded'>>());
  })();
});
afterAll(async () => h?.close());

const MJML =
  '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{name}}</mj-text></mj-column></mj-section></mj-body></mjml>';
const admin = (p: ProjectId, mailMonthly?: number) => ({
  projectId: p,
  admin: true,
  ...(mailMonthly !== undefined ? { mailMonthly } : {}),
});
const base = (p: ProjectId) => `/api/admin/projects/${p}/mail`;
const messages = (p: ProjectId, q = '') => call(h, 'GET', `${base(p)}/messages${q}`, undefined, admin(p));
const usage = async (p: ProjectId) =>
  (await call(h, 'GET', `${base(p)}/usage`, undefined, admin(p))).body.monthlyUsage as number;

describe('POST .../mail/preview', () => {
  it('compiles MJML and renders the sample variables without sending or counting anything', async () => {
    const p = newProjectId();
    const r = await call(
      h,
      'POST',
      `${base(p)}/preview`,
      { subject: 'Welcome, {{name}}', mjml: MJML, text: 'Hi {{name}}', variables: { name: 'Ada <3' } },
      admin(p),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Preview',
      data: { subject: 'Welcome, Ada <3', text: 'Hi Ada <3' },
    });
    expect(r.body.data.html).toContain('Hello Ada &lt;3');
    const htmlOnly = await call(
      h,
      'POST',
      `${base(p)}/preview`,
      { subject: 'S', html: '<p>x</p>' },
      admin(p),
    );
    expect(htmlOnly.body.data).toEqual({ subject: 'S', html: '<p>x</p>', text: null });
    expect((await messages(p)).body.data.items).toEqual([]);
    expect(await usage(p)).toBe(0);
  });

  it('renders a global template at /api/admin/mail/preview, for the platform admin only', async () => {
    const body = { subject: 'Hi {{name}}', mjml: MJML, variables: { name: 'Ada' } };
    const r = await call(h, 'POST', '/api/admin/mail/preview', body, { admin: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, data: { subject: 'Hi Ada', text: null } });
    expect(r.body.data.html).toContain('Hello Ada');
    const broken = await call(
      h,
      'POST',
      '/api/admin/mail/preview',
      { subject: 'S', html: '<p>{{#open}}</p>' },
      { admin: true },
    );
    expect([broken.status, broken.body.code]).toEqual([400, 'INVALID_TEMPLATE']);
    const p = newProjectId();
    const notAdmin = await call(h, 'POST', '/api/admin/mail/preview', body, {
      projectId: p,
      keyType: 'secret',
    });
    expect([notAdmin.status, notAdmin.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });

  it.each([
    [
      'broken MJML',
      { subject: 'S', mjml: '<mjml><mj-body><mj-texxt>x</mj-texxt></mj-body></mjml>' },
      'INVALID_MJML',
    ],
    ['broken mustache', { subject: 'S', html: '<p>{{#open}}</p>' }, 'INVALID_TEMPLATE'],
    ['an empty subject after rendering', { subject: '{{nothing}}', text: 'x' }, 'EMPTY_SUBJECT'],
    ['no body', { subject: 'S' }, 'VALIDATION_FAILED'],
    ['an unknown field', { subject: 'S', text: 'x', bcc: 'a@example.com' }, 'VALIDATION_FAILED'],
    ['variables that are not an object', { subject: 'S', text: 'x', variables: [1] }, 'VALIDATION_FAILED'],
  ])('answers %s with 400 %s and a message', async (_what, body, code) => {
    const p = newProjectId();
    const r = await call(h, 'POST', `${base(p)}/preview`, body, admin(p));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      success: false,
      code,
      message: expect.any(String),
      requestId: expect.any(String),
    });
    if (code === 'INVALID_MJML') expect(r.body.message).toContain('mj-texxt');
  });
});

describe('POST .../mail/templates/:key/test and the sent-mail log', () => {
  it('sends the project’s template with sample variables, counts it, logs it and audits it', async () => {
    const p = newProjectId();
    const key = `welcome-${randomHexId().slice(-8)}`;
    const put = await call(
      h,
      'PUT',
      `${base(p)}/templates/${key}`,
      { subject: 'Welcome, {{name}}', mjml: MJML },
      admin(p),
    );
    expect(put.status).toBe(201);
    const direct = await sendAs(h, p, { to: uniqueAddress('log-direct'), subject: 'Direct', text: 'x' });
    expect(direct.status).toBe(200);

    const to = uniqueAddress('admin-test');
    const r = await call(
      h,
      'POST',
      `${base(p)}/templates/${key}/test`,
      { to, variables: { name: 'Grace' } },
      admin(p),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Test mail sent',
      data: {
        id: expect.stringMatching(/^[a-f0-9]{24}$/),
        provider: 'smtp',
        monthlyUsage: 2,
        monthlyLimit: 1000,
      },
    });
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Welcome, Grace');
    expect(m.HTML).toContain('Hello Grace');
    expect(await usage(p)).toBe(2);

    const log = await messages(p);
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({
      success: true,
      message: 'Sent mail',
      data: { cursor: '', nextCursor: null },
    });
    expect(log.body.data.items).toEqual([
      {
        id: r.body.data.id,
        to,
        templateKey: key,
        system: false,
        provider: 'smtp',
        status: 'sent',
        attempts: 1,
        error: null,
        createdAt: expect.stringMatching(/^\d{4}-/),
      },
      expect.objectContaining({ id: direct.body.data.id, templateKey: null, status: 'sent' }),
    ]);
    const first = await messages(p, '?limit=1');
    expect(first.body.data.items.map((x: { id: string }) => x.id)).toEqual([r.body.data.id]);
    const second = await messages(p, `?limit=1&cursor=${encodeURIComponent(first.body.data.nextCursor)}`);
    expect(second.body.data.items.map((x: { id: string }) => x.id)).toEqual([direct.body.data.id]);
    expect(second.body.data.nextCursor).toBeNull();
    // Another project's log does not show these.
    expect((await messages(newProjectId())).body.data.items).toEqual([]);

    await waitUntil(() => audits.some((e) => e.projectId === p));
    await new Promise((res) => setTimeout(res, 200));
    // One entry. This subscription sees every publish on core NATS, and the MongoDB relay may
    // publish an event twice (the write's immediate relay and a periodic pass meeting): the stream
    // keeps one (the event id is its Nats-Msg-Id) and the audit consumer records by id.
    const mine = [...new Map(audits.filter((e) => e.projectId === p).map((e) => [e.id, e])).values()];
    expect(mine).toHaveLength(1);
    expect(mine[0]?.data).toMatchObject({
      action: 'mail.test_sent',
      actor: { type: 'platform-admin' },
      target: { type: 'mail-template', id: key },
      details: { messageId: r.body.data.id, status: 'sent' },
    });
    expect(JSON.stringify(mine[0])).not.toContain(to);
  });

  it('refuses an unknown or global-only key, a bad recipient and a spent month', async () => {
    const p = newProjectId();
    const key = `t-${randomHexId().slice(-8)}`;
    const none = await call(h, 'POST', `${base(p)}/templates/${key}/test`, { to: uniqueAddress() }, admin(p));
    expect([none.status, none.body.code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    // `welcome` ships in code for every project, but it is not this project's own template.
    const builtin = await call(
      h,
      'POST',
      `${base(p)}/templates/welcome/test`,
      { to: uniqueAddress() },
      admin(p),
    );
    expect([builtin.status, builtin.body.code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    const badKey = await call(h, 'POST', `${base(p)}/templates/-bad/test`, { to: uniqueAddress() }, admin(p));
    expect([badKey.status, badKey.body.code]).toEqual([400, 'VALIDATION_FAILED']);

    await call(h, 'PUT', `${base(p)}/templates/${key}`, { subject: 'S {{x}}', text: 'T' }, admin(p));
    for (const body of [{}, { to: 'Eve <e@example.com>' }, { to: uniqueAddress(), cc: 'x@example.com' }]) {
      const r = await call(h, 'POST', `${base(p)}/templates/${key}/test`, body, admin(p));
      expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const ok = await call(
      h,
      'POST',
      `${base(p)}/templates/${key}/test`,
      { to: uniqueAddress() },
      admin(p, 1),
    );
    expect(ok.status).toBe(200);
    const spent = await call(
      h,
      'POST',
      `${base(p)}/templates/${key}/test`,
      { to: uniqueAddress() },
      admin(p, 1),
    );
    expect([spent.status, spent.body.code]).toEqual([429, 'MAIL_LIMIT_EXCEEDED']);
    expect((await messages(p)).body.data.items).toHaveLength(1);
  });

  it('answers bad list parameters with 400, and refuses a key or another project', async () => {
    const p = newProjectId();
    const hexCursor = encodeTimeKeyset({ at: new Date(), id: 'not-a-message-id' });
    for (const q of ['?limit=0', '?limit=abc', '?cursor=zzz', `?cursor=${hexCursor}`, '?status=sent']) {
      const r = await messages(p, q);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
    const withKey = await call(h, 'GET', `${base(p)}/messages`, undefined, {
      projectId: p,
      keyType: 'secret',
    });
    expect([withKey.status, withKey.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
    const preview = await call(
      h,
      'POST',
      `${base(p)}/preview`,
      { subject: 'S', text: 'x' },
      {
        projectId: p,
        keyType: 'secret',
      },
    );
    expect([preview.status, preview.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
    const crossed = await call(h, 'GET', `${base(p)}/messages`, undefined, admin(newProjectId()));
    expect([crossed.status, crossed.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    const crossedTest = await call(
      h,
      'POST',
      `${base(p)}/templates/x/test`,
      { to: uniqueAddress() },
      admin(newProjectId()),
    );
    expect([crossedTest.status, crossedTest.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
  });
});
