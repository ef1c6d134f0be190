import { randomBytes } from 'node:crypto';
import { MAIL_API_URL, client, createProject } from '../support/e2e';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';

/** Issue 6: templates (admin API, resolution order, rendering rules) through the gateway. */
const mailpit = new Mailpit(MAIL_API_URL);
const uniqueKey = (tag: string) => `${tag}-${randomBytes(5).toString('hex')}`;

describe('template admin API', () => {
  it('creates a project template with 201, replaces it with 200, lists, reads and deletes it', async () => {
    const call = client();
    const p = await createProject();
    const path = `/api/admin/projects/${p.id}/mail/templates/receipt`;
    const created = await call('PUT', path, {
      admin: true,
      body: { name: 'Receipt', subject: 'Receipt {{n}}', html: '<p>{{n}}</p>' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^[a-f0-9]{24}$/),
      key: 'receipt',
      name: 'Receipt',
      scope: 'project',
      projectId: p.id,
    });
    const replaced = await call('PUT', path, {
      admin: true,
      body: { subject: 'Receipt #{{n}}', text: 'n={{n}}' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: created.body.id,
      key: 'receipt',
      subject: 'Receipt #{{n}}',
      html: null,
      text: 'n={{n}}',
    });
    expect(
      (await call('GET', `/api/admin/projects/${p.id}/mail/templates`, { admin: true })).body,
    ).toHaveLength(1);
    expect((await call('GET', path, { admin: true })).body.id).toBe(created.body.id);
    expect((await call('DELETE', path, { admin: true })).status).toBe(200);
    expect((await call('GET', path, { admin: true })).status).toBe(404);
  });

  it('needs the admin token (401) and an existing project (404)', async () => {
    const call = client();
    const p = await createProject();
    const body = { subject: 's', text: 't' };
    expect((await call('PUT', `/api/admin/projects/${p.id}/mail/templates/x`, { body })).status).toBe(401);
    expect(
      (await call('PUT', `/api/admin/projects/${p.id}/mail/templates/x`, { key: p.secretKey, body })).status,
    ).toBe(401);
    expect((await call('PUT', '/api/admin/mail/templates/x', { key: p.secretKey, body })).status).toBe(401);
    expect(
      (
        await call('PUT', '/api/admin/projects/0123456789abcdef01234567/mail/templates/x', {
          admin: true,
          body,
        })
      ).status,
    ).toBe(404);
  });

  it("refuses MJML that does not compile with 400 and the compiler's message", async () => {
    const call = client();
    const p = await createProject();
    const r = await call('PUT', `/api/admin/projects/${p.id}/mail/templates/bad`, {
      admin: true,
      body: {
        subject: 's',
        mjml: '<mjml><mj-body><mj-column><mj-text>x</mj-text></mj-column></mj-body></mjml>',
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_MJML');
    expect(r.body.message).toContain('mj-column cannot be used inside mj-body');
    expect(
      (await call('GET', `/api/admin/projects/${p.id}/mail/templates/bad`, { admin: true })).status,
    ).toBe(404);
  });

  it.each([
    ['no subject', { text: 't' }],
    ['no body', { subject: 's' }],
    ['mustache that does not parse', { subject: 's', html: '<p>{{#items}}</p>' }],
  ])('refuses a template with %s (400)', async (_n, body) => {
    const p = await createProject();
    const r = await client()('PUT', `/api/admin/projects/${p.id}/mail/templates/k`, { admin: true, body });
    expect(r.status).toBe(400);
  });

  it('sends an MJML template as compiled, responsive HTML', async () => {
    const call = client();
    const p = await createProject();
    const mjml =
      '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{name}}</mj-text><mj-button href="{{ctaUrl}}">Open</mj-button></mj-column></mj-section></mj-body></mjml>';
    expect(
      (
        await call('PUT', `/api/admin/projects/${p.id}/mail/templates/mj`, {
          admin: true,
          body: { subject: 'MJML for {{name}}', mjml },
        })
      ).status,
    ).toBe(201);
    const to = uniqueAddress('e2e-mjml');
    const r = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to, templateName: 'mj', variables: { name: 'Zoe', ctaUrl: 'https://example.com/go' } },
    });
    expect(r.status).toBe(200);
    const m = await mailpit.waitFor(to);
    expect(m.Subject).toBe('MJML for Zoe');
    expect(m.HTML).toContain('<!doctype html>');
    expect(m.HTML).toContain('Hello Zoe');
    expect(m.HTML).toContain('href="https:&#x2F;&#x2F;example.com&#x2F;go"');
  });
});

describe('template mode', () => {
  it('sends by templateId; another project cannot use that id (404)', async () => {
    const call = client();
    const owner = await createProject();
    const other = await createProject();
    const t = await call('PUT', `/api/admin/projects/${owner.id}/mail/templates/by-id`, {
      admin: true,
      body: { subject: 'By id {{n}}', text: 'n={{n}}' },
    });
    const to = uniqueAddress('e2e-byid');
    const ok = await call('POST', '/api/mail/send', {
      key: owner.secretKey,
      body: { to, templateId: t.body.id, variables: { n: 7 } },
    });
    expect(ok.status).toBe(200);
    const m = await mailpit.waitFor(to);
    expect(m.Subject).toBe('By id 7');
    expect(m.Text.trim()).toBe('n=7');
    const stranger = uniqueAddress('e2e-byid-other');
    const denied = await call('POST', '/api/mail/send', {
      key: other.secretKey,
      body: { to: stranger, templateId: t.body.id },
    });
    expect(denied.status).toBe(404);
    expect(JSON.stringify(denied.body)).not.toContain('By id');
    expect(await mailpit.countAfter(stranger, 300)).toBe(0);
  });

  it('resolves a name: project override beats global, global beats the legacy embedded template', async () => {
    const call = client();
    const p = await createProject();
    const other = await createProject();
    await call('DELETE', '/api/admin/mail/templates/welcome', { admin: true }); // a clean start; 404 is fine
    const send = async (key: string, tag: string) => {
      const to = uniqueAddress(tag);
      const r = await call('POST', '/api/mail/send', {
        key,
        body: { to, templateName: 'welcome', variables: { name: 'Ada' } },
      });
      expect(r.status).toBe(200);
      return mailpit.waitFor(to);
    };
    try {
      expect((await send(p.secretKey, 'e2e-legacy')).Subject).toBe('Welcome, Ada!');
      const g = await call('PUT', '/api/admin/mail/templates/welcome', {
        admin: true,
        body: { subject: 'Global welcome {{name}}', text: 'g' },
      });
      expect(g.status).toBe(201);
      expect(g.body).toMatchObject({ key: 'welcome', scope: 'global', projectId: null });
      expect((await send(p.secretKey, 'e2e-global')).Subject).toBe('Global welcome Ada');
      await call('PUT', `/api/admin/projects/${p.id}/mail/templates/welcome`, {
        admin: true,
        body: { subject: 'Project welcome {{name}}', text: 'p' },
      });
      expect((await send(p.secretKey, 'e2e-override')).Subject).toBe('Project welcome Ada');
      expect((await send(other.secretKey, 'e2e-other')).Subject).toBe('Global welcome Ada');
    } finally {
      await call('DELETE', '/api/admin/mail/templates/welcome', { admin: true });
    }
    expect((await send(other.secretKey, 'e2e-legacy-again')).Subject).toBe('Welcome, Ada!');
  });

  it('finds a global template by its key from any project, by id too', async () => {
    const call = client();
    const key = uniqueKey('e2e-global');
    const g = await call('PUT', `/api/admin/mail/templates/${key}`, {
      admin: true,
      body: { subject: 'Global {{x}}', text: 'x={{x}}' },
    });
    try {
      const p = await createProject();
      const to = uniqueAddress('e2e-global-id');
      expect(
        (
          await call('POST', '/api/mail/send', {
            key: p.secretKey,
            body: { to, templateId: g.body.id, variables: { x: 1 } },
          })
        ).status,
      ).toBe(200);
      expect((await mailpit.waitFor(to)).Subject).toBe('Global 1');
    } finally {
      await call('DELETE', `/api/admin/mail/templates/${key}`, { admin: true });
    }
  });

  it('escapes {{x}}, leaves {{{x}}} raw, resolves {{user.name}}, and never lets javascript: into an href', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/mail/templates/render`, {
      admin: true,
      body: {
        subject: 'For {{user.name}}',
        html: '<p id="e">{{x}}</p><p id="r">{{{x}}}</p><p id="n">{{user.name}}</p><a id="a" href="{{link}}">a</a><a id="b" href="{{{resetUrl}}}">b</a><a id="c" href="{{target}}">c</a>',
        text: 'text {{x}}',
      },
    });
    const to = uniqueAddress('e2e-render');
    const r = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: {
        to,
        templateName: 'render',
        variables: {
          x: '<script>alert(1)</script>',
          user: { name: 'Grace <Hopper>' },
          link: 'javascript:alert(document.cookie)',
          resetUrl: ' JAVASCRIPT:alert(1)',
          target: 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
        },
      },
    });
    expect(r.status).toBe(200);
    const m = await mailpit.waitFor(to);
    expect(m.Subject).toBe('For Grace <Hopper>');
    expect(m.HTML).toContain('<p id="e">&lt;script&gt;alert(1)&lt;&#x2F;script&gt;</p>');
    expect(m.HTML).toContain('<p id="r"><script>alert(1)</script></p>');
    expect(m.HTML).toContain('<p id="n">Grace &lt;Hopper&gt;</p>');
    expect(m.HTML).toContain('<a id="a" href="">');
    expect(m.HTML).toContain('<a id="b" href="">');
    expect(m.HTML).toContain('<a id="c" href="">');
    expect(m.HTML.toLowerCase()).not.toMatch(/javascript:|data:text/);
    expect(m.Text.trim()).toBe('text <script>alert(1)</script>');
  });

  it('keeps a safe https URL variable', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/mail/templates/link`, {
      admin: true,
      body: { subject: 'Link', html: '<a href="{{{resetUrl}}}">reset</a>' },
    });
    const to = uniqueAddress('e2e-safeurl');
    await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to, templateName: 'link', variables: { resetUrl: 'https://app.example.com/reset?t=abc' } },
    });
    expect((await mailpit.waitFor(to)).HTML).toContain(
      '<a href="https://app.example.com/reset?t=abc">reset</a>',
    );
  });

  it('answers 400 when the subject or the body is empty after substitution', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/mail/templates/empty`, {
      admin: true,
      body: { subject: '{{title}}', html: '<p>{{body}}</p>' },
    });
    const noSubject = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), templateName: 'empty', variables: { body: 'b' } },
    });
    expect(noSubject.status).toBe(400);
    expect(noSubject.body.code).toBe('EMPTY_SUBJECT');
    const noBody = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), templateName: 'empty', variables: { title: 't' } },
    });
    expect(noBody.status).toBe(400);
    expect(noBody.body.code).toBe('EMPTY_BODY');
    const usage = await call('GET', `/api/admin/projects/${p.id}/mail/usage`, { admin: true });
    expect(usage.body.monthlyUsage).toBe(0);
  });
});
