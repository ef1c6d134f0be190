import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { call, newProjectId, sendAs, startHarness, type Harness } from '../support/harness';
import { uniqueAddress } from '../support/mailpit';

/**
 * Issue 12 item 8 through the HTTP app: the template bomb (sections nested over an array) is a
 * 400 in the contract's error body well under a second, on save and on send; the monthly count is
 * untouched; the platform's verification and reset templates cannot be sent through the API.
 */
let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness();
});
afterAll(async () => h?.close());

const nested = (n: number) => `${'{{#a}}'.repeat(n)}<b>{{x}}</b>${'{{/a}}'.repeat(n)}`;
const sixty = Array.from({ length: 60 }, () => ({}));

function expectErrorBody(r: { status: number; body: any }, code: string) {
  expect(r.status).toBe(400);
  expect(r.body).toEqual({
    success: false,
    error: expect.any(String),
    message: r.body.error,
    code,
    requestId: expect.any(String),
    ...(r.body.details ? { details: expect.any(Array) } : {}),
  });
}

describe('the template bomb', () => {
  it('direct mode: five levels over 60 items, and four, are 400 TEMPLATE_TOO_COMPLEX in well under a second', async () => {
    const p = newProjectId();
    for (const depth of [5, 4]) {
      const started = Date.now();
      const r = await sendAs(h, p, {
        to: uniqueAddress('bomb'),
        subject: 'bomb',
        html: nested(depth),
        variables: { a: sixty, x: 'boom' },
      });
      expect(Date.now() - started).toBeLessThan(1000);
      expectErrorBody(r, 'TEMPLATE_TOO_COMPLEX');
    }
    // nothing counted against the month
    const usage = await call(h, 'GET', `/api/admin/projects/${p}/mail/usage`, undefined, {
      projectId: p,
      admin: true,
    });
    expect(usage.body.monthlyUsage).toBe(0);
  });

  it('on save: sections 4 deep are stored, 5 deep are 400 (html, text, subject and mjml alike)', async () => {
    const p = newProjectId();
    const put = (body: Record<string, string>) =>
      call(h, 'PUT', `/api/admin/projects/${p}/mail/templates/deep`, body, { projectId: p, admin: true });
    expect((await put({ subject: 's', html: nested(4) })).status).toBe(201);
    for (const part of ['html', 'text', 'subject'] as const) {
      const body: Record<string, string> = { subject: 's', text: 't', [part]: nested(5) };
      const r = await put(body);
      expectErrorBody(r, 'TEMPLATE_TOO_COMPLEX');
      expect(r.body.details).toEqual([{ path: part, message: expect.stringMatching(/nested 5 deep/) }]);
    }
    const mjml = `<mjml><mj-body><mj-section><mj-column><mj-text>${nested(5)}</mj-text></mj-column></mj-section></mj-body></mjml>`;
    expectErrorBody(await put({ subject: 's', mjml }), 'TEMPLATE_TOO_COMPLEX');
  });

  it('template mode: a stored template 4 deep over 60 items stops at the render budget', async () => {
    const p = newProjectId();
    const put = await call(
      h,
      'PUT',
      `/api/admin/projects/${p}/mail/templates/four`,
      { subject: 's', html: nested(4) },
      { projectId: p, admin: true },
    );
    expect(put.status).toBe(201);
    const started = Date.now();
    const r = await sendAs(h, p, {
      to: uniqueAddress('four'),
      templateName: 'four',
      variables: { a: sixty },
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expectErrorBody(r, 'TEMPLATE_TOO_COMPLEX');
  });

  it('arrays in variables: 100 items are sent, 101 are 400', async () => {
    const p = newProjectId();
    const send = (n: number) =>
      sendAs(h, p, {
        to: uniqueAddress('items'),
        subject: 'list',
        text: '{{#a}}.{{/a}}',
        variables: { a: Array.from({ length: n }, (_, i) => i) },
      });
    expect((await send(100)).status).toBe(200);
    expectErrorBody(await send(101), 'VALIDATION_FAILED');
  });
});

describe("the platform's verification and reset templates", () => {
  it.each(['verify-email', 'password-reset', 'console-invitation', 'console-password-reset'])(
    'cannot be sent through /api/mail/send with a caller-chosen link: %s',
    async (name) => {
      const p = newProjectId();
      const to = uniqueAddress('phish');
      const r = await sendAs(h, p, {
        to,
        templateName: name,
        variables: { code: '12345678', link: 'https://evil.example.com/reset' },
      });
      expectErrorBody(r, 'SYSTEM_TEMPLATE_RESERVED');
      expect(r.body.details).toEqual([{ path: 'templateName', message: 'reserved' }]);
      expect(await h.mailpit.countAfter(to, 300)).toBe(0);
    },
  );

  it('nor as an operator-stored global version, by name or by id; a project override stays its own to send', async () => {
    const p = newProjectId();
    const global = await call(
      h,
      'PUT',
      '/api/admin/mail/templates/verify-email',
      { subject: 'Verify (platform)', text: 'Code {{code}} {{link}}' },
      { admin: true },
    );
    expect([200, 201]).toContain(global.status);
    try {
      expectErrorBody(
        await sendAs(h, p, { to: uniqueAddress('g'), templateId: global.body.id }),
        'SYSTEM_TEMPLATE_RESERVED',
      );
      expectErrorBody(
        await sendAs(h, p, { to: uniqueAddress('g'), templateName: 'verify-email' }),
        'SYSTEM_TEMPLATE_RESERVED',
      );
      const own = await call(
        h,
        'PUT',
        `/api/admin/projects/${p}/mail/templates/verify-email`,
        { subject: 'Verify (ours)', text: 'Code {{code}}' },
        { projectId: p, admin: true },
      );
      expect(own.status).toBe(201);
      const sent = await sendAs(h, p, {
        to: uniqueAddress('own'),
        templateName: 'verify-email',
        variables: { code: '1' },
      });
      expect(sent.status).toBe(200);
    } finally {
      await call(h, 'DELETE', '/api/admin/mail/templates/verify-email', undefined, { admin: true });
    }
  });
});
