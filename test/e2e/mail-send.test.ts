import { ObjectId } from 'mongodb';
import { MAIL_API_URL, client, createProject } from '../support/e2e';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';

/** Issue 6: POST /api/mail/send through the gateway, read back from the SMTP capture server. */
const mailpit = new Mailpit(MAIL_API_URL);

describe('POST /api/mail/send', () => {
  it('refuses a publishable key with 403 and sends nothing', async () => {
    const call = client();
    const p = await createProject();
    const to = uniqueAddress('e2e-pk');
    const r = await call('POST', '/api/mail/send', {
      key: p.publishableKey,
      body: { to, subject: 's', text: 't' },
    });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      success: false,
      code: 'SECRET_KEY_REQUIRED',
      requestId: expect.any(String),
    });
    expect(await mailpit.countAfter(to, 300)).toBe(0);
  });

  it('refuses a request without a key with 401', async () => {
    const r = await client()('POST', '/api/mail/send', {
      body: { to: uniqueAddress(), subject: 's', text: 't' },
    });
    expect(r.status).toBe(401);
  });

  it('sends a direct html + text mail and answers with id, provider and usage', async () => {
    const call = client();
    const p = await createProject();
    const to = uniqueAddress('e2e-direct');
    const r = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to, subject: 'Direct subject', html: '<h1>Hello</h1><p>html part</p>', text: 'text part' },
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
    const m = await mailpit.waitFor(to);
    expect(m.Subject).toBe('Direct subject');
    expect(m.HTML).toContain('<h1>Hello</h1><p>html part</p>');
    expect(m.Text.trim()).toBe('text part');
    expect(m.To).toEqual([{ Name: '', Address: to }]);
    expect(m.MessageID).toBe(`${r.body.data.id}@baas.local`);
    const headers = await mailpit.headers(m.ID);
    expect(headers.To).toEqual([to]);
    expect(headers.Subject).toEqual(['Direct subject']);
  });

  it('sends a text-only mail', async () => {
    const p = await createProject();
    const to = uniqueAddress('e2e-text');
    const r = await client()('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to, subject: 'Only text', text: 'plain <b>not html</b>' },
    });
    expect(r.status).toBe(200);
    const m = await mailpit.waitFor(to);
    expect(m.Text.trim()).toBe('plain <b>not html</b>');
    expect(m.HTML).toBe('');
  });

  it.each([
    ['a missing recipient', { subject: 's', text: 't' }],
    ['an array of recipients', { to: ['a@example.com', 'b@example.com'], subject: 's', text: 't' }],
    ['a comma-separated list', { to: 'a@example.com,b@example.com', subject: 's', text: 't' }],
    ['a display name', { to: '"Admin" <a@example.com>', subject: 's', text: 't' }],
    ['no subject in direct mode', { to: 'a@example.com', html: '<p>x</p>' }],
    ['no body in direct mode', { to: 'a@example.com', subject: 's' }],
    ['an empty subject', { to: 'a@example.com', subject: '   ', text: 't' }],
    [
      'both templateId and templateName',
      { to: 'a@example.com', templateId: new ObjectId().toHexString(), templateName: 'welcome' },
    ],
    ['a malformed templateId', { to: 'a@example.com', templateId: '12345' }],
    ['an unsupported field (bcc)', { to: 'a@example.com', subject: 's', text: 't', bcc: 'x@example.com' }],
  ])('answers 400 for %s', async (_name, body) => {
    const p = await createProject();
    const r = await client()('POST', '/api/mail/send', { key: p.secretKey, body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: expect.any(String), message: expect.any(String) });
  });

  it('answers 400 for malformed JSON', async () => {
    const p = await createProject();
    const r = await client()('POST', '/api/mail/send', {
      key: p.secretKey,
      rawBody: '{"to":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
  });

  it('answers 404 for a template id or name that does not exist', async () => {
    const p = await createProject();
    const call = client();
    const byId = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), templateId: new ObjectId().toHexString() },
    });
    expect(byId.status).toBe(404);
    expect(byId.body.code).toBe('TEMPLATE_NOT_FOUND');
    const byName = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), templateName: 'does-not-exist-anywhere' },
    });
    expect(byName.status).toBe(404);
  });
});

describe('header injection', () => {
  it('refuses CR/LF in the recipient and in a direct subject, and sends nothing', async () => {
    const p = await createProject();
    const call = client();
    const to = uniqueAddress('e2e-inj');
    const victim = uniqueAddress('e2e-victim');
    for (const body of [
      { to: `${to}\r\nBcc: ${victim}`, subject: 's', text: 't' },
      { to: `${to}\nBcc: ${victim}`, subject: 's', text: 't' },
      { to, subject: `hello\r\nBcc: ${victim}`, text: 't' },
      { to, subject: `hello\nX-Injected: 1`, text: 't' },
    ]) {
      const r = await call('POST', '/api/mail/send', { key: p.secretKey, body });
      expect(r.status).toBe(400);
    }
    expect(await mailpit.countAfter(to, 300)).toBe(0);
    expect(await mailpit.countAfter(victim, 0)).toBe(0);
  });

  it('flattens CR/LF that variables bring into a template subject', async () => {
    const p = await createProject();
    const call = client();
    await call('PUT', `/api/admin/projects/${p.id}/mail/templates/greet`, {
      admin: true,
      body: { subject: 'Hi {{name}}', text: 'body {{name}}' },
    });
    const to = uniqueAddress('e2e-varinj');
    const victim = uniqueAddress('e2e-varvictim');
    const r = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to, templateName: 'greet', variables: { name: `Bob\r\nBcc: ${victim}\r\nX-Injected: yes` } },
    });
    expect(r.status).toBe(200);
    const m = await mailpit.waitFor(to);
    expect(m.Subject).toBe(`Hi Bob Bcc: ${victim} X-Injected: yes`);
    expect(m.Bcc ?? []).toEqual([]);
    expect(m.To).toEqual([{ Name: '', Address: to }]);
    const headers = await mailpit.headers(m.ID);
    expect(headers['X-Injected']).toBeUndefined();
    expect(headers.Bcc).toBeUndefined();
    expect(await mailpit.countAfter(victim, 300)).toBe(0);
  });
});

describe('monthly mail limit', () => {
  it('sends at the limit and answers 429 past it, without sending', async () => {
    const p = await createProject({ limits: { mailMonthly: 2 } });
    const call = client();
    const to = uniqueAddress('e2e-limit');
    const send = (n: number) =>
      call('POST', '/api/mail/send', { key: p.secretKey, body: { to, subject: `n${n}`, text: 'x' } });
    const one = await send(1);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ monthlyUsage: 1, monthlyLimit: 2 });
    const two = await send(2);
    expect(two.status).toBe(200);
    expect(two.body.data).toMatchObject({ monthlyUsage: 2, monthlyLimit: 2 });
    const three = await send(3);
    expect(three.status).toBe(429);
    expect(three.body).toMatchObject({ success: false, code: 'MAIL_LIMIT_EXCEEDED' });
    expect(await mailpit.countAfter(to, 500)).toBe(2);
    const usage = await call('GET', `/api/admin/projects/${p.id}/mail/usage`, { admin: true });
    expect(usage.body).toMatchObject({ monthlyUsage: 2, monthlyLimit: 2 });
  });

  it('does not count a request that was refused before sending', async () => {
    const p = await createProject({ limits: { mailMonthly: 1 } });
    const call = client();
    expect(
      (
        await call('POST', '/api/mail/send', {
          key: p.secretKey,
          body: { to: uniqueAddress(), templateName: 'notification' },
        })
      ).status,
    ).toBe(400);
    const ok = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), subject: 's', text: 't' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.monthlyUsage).toBe(1);
  });

  it("counts each project separately: one project's limit does not stop another", async () => {
    const a = await createProject({ limits: { mailMonthly: 1 } });
    const b = await createProject({ limits: { mailMonthly: 1 } });
    const call = client();
    const send = (k: string) =>
      call('POST', '/api/mail/send', { key: k, body: { to: uniqueAddress(), subject: 's', text: 't' } });
    expect((await send(a.secretKey)).status).toBe(200);
    expect((await send(a.secretKey)).status).toBe(429);
    expect((await send(b.secretKey)).status).toBe(200);
  });
});
