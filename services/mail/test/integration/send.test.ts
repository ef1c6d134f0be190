import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { signAssertion } from '@baas/common';
import {
  ASSERTION_KEYS,
  call,
  newProjectId,
  randomHexId,
  sendAs,
  startHarness,
  waitUntil,
  type Harness,
} from '../support/harness';
import { uniqueAddress } from '../support/mailpit';
import { sweepUsage } from '../../src/domain/usage/sweep-usage';

let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness();
});
afterAll(async () => h?.close());

describe('POST /api/mail/send (direct mode)', () => {
  it('sends html and text over SMTP, records the message and publishes mail.sent', async () => {
    const p = newProjectId();
    const to = uniqueAddress('direct');
    const r = await sendAs(h, p, {
      to,
      subject: 'Hello there',
      html: '<p>Hi <b>you</b></p>',
      text: 'Hi you',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[a-f0-9]{24}$/),
        provider: 'smtp',
        monthlyUsage: 1,
        monthlyLimit: 1000,
      },
      message: expect.any(String),
    });
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Hello there');
    expect(m.HTML).toContain('<p>Hi <b>you</b></p>');
    expect(m.Text.trim()).toBe('Hi you');
    expect(m.To).toEqual([{ Name: '', Address: to }]);
    expect(m.From).toEqual({ Name: 'BaaS Test', Address: 'no-reply@baas.local' });
    expect(m.MessageID).toBe(`${r.body.data.id}@baas.local`);

    const [stored] = await h.stored.messages(p);
    expect(stored).toMatchObject({
      id: r.body.data.id,
      projectId: p,
      to,
      status: 'sent',
      system: false,
      attempts: 1,
    });
    await waitUntil(() =>
      h.published.some(
        (e) => e.type === 'mail.sent' && (e.data as { messageId: string }).messageId === r.body.data.id,
      ),
    );
    const ev = h.published.find((e) => (e.data as { messageId?: string }).messageId === r.body.data.id);
    expect(ev).toMatchObject({
      type: 'mail.sent',
      projectId: p,
      data: { messageId: r.body.data.id, system: false },
    });
    await waitUntil(async () => !(await h.stored.eventPending(r.body.data.id as string)));
  });

  it('sends a text-only message', async () => {
    const to = uniqueAddress('textonly');
    const r = await sendAs(h, newProjectId(), { to, subject: 'Plain', text: 'Just text <not html>' });
    expect(r.status).toBe(200);
    const m = await h.mailpit.waitFor(to);
    expect(m.Text.trim()).toBe('Just text <not html>');
    expect(m.HTML).toBe('');
  });

  it('refuses a publishable key with 403 and a request without project with 401', async () => {
    const p = newProjectId();
    const pk = await call(
      h,
      'POST',
      '/api/mail/send',
      { to: uniqueAddress(), subject: 's', text: 't' },
      { projectId: p, keyType: 'publishable' },
    );
    expect(pk.status).toBe(403);
    expect(pk.body.code).toBe('SECRET_KEY_REQUIRED');
    const none = await call(
      h,
      'POST',
      '/api/mail/send',
      { to: uniqueAddress(), subject: 's', text: 't' },
      {},
    );
    expect(none.status).toBe(401);
  });

  it.each([
    ['no body part', { subject: 's' }],
    ['no subject', { text: 't' }],
    ['nothing', {}],
    ['an array recipient', { to: ['a@example.com'], subject: 's', text: 't' }],
    ['a recipient list', { to: 'a@example.com, b@example.com', subject: 's', text: 't' }],
    ['a display name', { to: 'Eve <a@example.com>', subject: 's', text: 't' }],
    ['CR/LF in the recipient', { to: 'a@example.com\r\nBcc: victim@example.com', subject: 's', text: 't' }],
    ['CR/LF in the subject', { to: 'a@example.com', subject: 'hi\r\nBcc: victim@example.com', text: 't' }],
    ['an unknown field', { to: 'a@example.com', subject: 's', text: 't', bcc: 'x@example.com' }],
    [
      'both template id and name',
      { to: 'a@example.com', templateId: randomHexId(), templateName: 'welcome' },
    ],
    ['a malformed template id', { to: 'a@example.com', templateId: 'not-an-id' }],
    ['template mode mixed with a subject', { to: 'a@example.com', templateName: 'welcome', subject: 's' }],
    ['variables that are not an object', { to: 'a@example.com', templateName: 'welcome', variables: [1] }],
  ])('refuses %s with 400', async (_name, body) => {
    const to = typeof (body as { to?: unknown }).to === 'string' ? undefined : uniqueAddress();
    const r = await sendAs(h, newProjectId(), { ...(to ? { to } : {}), ...body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: expect.any(String), requestId: expect.any(String) });
  });

  it('refuses malformed JSON with 400', async () => {
    const assertion = await signAssertion(ASSERTION_KEYS.privateKey, 'mail', {
      requestId: 'it-json',
      admin: false,
      projectId: newProjectId(),
      keyType: 'secret',
      settings: {
        publicSignups: true,
        requireEmailVerification: false,
        limits: { storageBytes: 1, documents: 1, mailMonthly: 5 },
      },
    });
    const r = await fetch(`${h.baseUrl}/api/mail/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-assertion': assertion },
      body: '{"to":',
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe('MALFORMED_JSON');
  });

  it('answers 404 for an unknown template id or name', async () => {
    const p = newProjectId();
    expect((await sendAs(h, p, { to: uniqueAddress(), templateId: randomHexId() })).status).toBe(404);
    const byName = await sendAs(h, p, { to: uniqueAddress(), templateName: 'no-such-template-x' });
    expect(byName.status).toBe(404);
    expect(byName.body.code).toBe('TEMPLATE_NOT_FOUND');
    // No store holds a NUL, so such a name is simply not found (never a database error).
    const nul = await sendAs(h, p, { to: uniqueAddress(), templateName: 'wel\u0000come' });
    expect(nul.status).toBe(404);
  });
});

describe('monthly limit', () => {
  it('sends up to the limit and answers 429 past it, without sending', async () => {
    const p = newProjectId();
    const to = uniqueAddress('limit');
    const first = await sendAs(h, p, { to, subject: 'one', text: '1' }, 2);
    const second = await sendAs(h, p, { to, subject: 'two', text: '2' }, 2);
    expect(first.body.data).toMatchObject({ monthlyUsage: 1, monthlyLimit: 2 });
    expect(second.body.data).toMatchObject({ monthlyUsage: 2, monthlyLimit: 2 });
    const third = await sendAs(h, p, { to, subject: 'three', text: '3' }, 2);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('MAIL_LIMIT_EXCEEDED');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await h.mailpit.countAfter(to, 500)).toBe(2);
    const month = new Date().toISOString().slice(0, 7);
    expect(await h.stored.usage(p, `month:${month}`)).toBe(2);
  });

  it('counts atomically under concurrency: exactly the limit succeeds', async () => {
    const p = newProjectId();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        sendAs(h, p, { to: uniqueAddress('race'), subject: `r${i}`, text: 'x' }, 5),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(11);
    expect(
      results
        .filter((r) => r.status === 200)
        .map((r) => r.body.data.monthlyUsage as number)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    const month = new Date().toISOString().slice(0, 7);
    expect(await h.stored.usage(p, `month:${month}`)).toBe(5);
  });

  it('keeps each project on its own counter', async () => {
    const a = newProjectId();
    const b = newProjectId();
    expect((await sendAs(h, a, { to: uniqueAddress(), subject: 's', text: 't' }, 1)).status).toBe(200);
    expect((await sendAs(h, a, { to: uniqueAddress(), subject: 's', text: 't' }, 1)).status).toBe(429);
    expect((await sendAs(h, b, { to: uniqueAddress(), subject: 's', text: 't' }, 1)).status).toBe(200);
  });

  it('reports usage on the admin API', async () => {
    const p = newProjectId();
    await sendAs(h, p, { to: uniqueAddress(), subject: 's', text: 't' });
    const r = await call(h, 'GET', `/api/admin/projects/${p}/mail/usage`, undefined, {
      projectId: p,
      admin: true,
      mailMonthly: 7,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ month: new Date().toISOString().slice(0, 7), monthlyUsage: 1, monthlyLimit: 7 });
  });
});

describe('usage retention', () => {
  it('sweeps month slots older than 62 days and system slots older than 2 days, and keeps current ones', async () => {
    const p = newProjectId();
    const old = new Date(Date.now() - 70 * 24 * 3600_000);
    await h.stored.insertUsage(p, 'month:2000-01', old);
    await h.stored.insertUsage(p, 'system-day:2000-01-01', old);
    await sendAs(h, p, { to: uniqueAddress(), subject: 's', text: 't' });
    await sweepUsage(h.deps);
    expect(await h.stored.usageBuckets(p)).toEqual([`month:${new Date().toISOString().slice(0, 7)}`]);
  });
});
