import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { call, newProjectId, randomHexId, sendAs, startHarness, type Harness } from '../support/harness';
import { uniqueAddress } from '../support/mailpit';
import type { ProjectId } from '@baas/common';

let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness();
});
afterAll(async () => h?.close());

const putProject = (p: ProjectId, key: string, body: unknown) =>
  call(h, 'PUT', `/api/admin/projects/${p}/mail/templates/${key}`, body, { projectId: p, admin: true });
const putGlobal = (key: string, body: unknown) =>
  call(h, 'PUT', `/api/admin/mail/templates/${key}`, body, { admin: true });
const uniqueKey = (tag: string) => `${tag}-${randomHexId().slice(-10)}`;

describe('admin template API', () => {
  it('creates with 201, replaces with 200 keeping the id, lists, reads and deletes a project template', async () => {
    const p = newProjectId();
    const created = await putProject(p, 'order-shipped', {
      name: 'Order shipped',
      subject: 'Shipped {{order}}',
      html: '<p>{{order}}</p>',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^[a-f0-9]{24}$/),
      key: 'order-shipped',
      name: 'Order shipped',
      scope: 'project',
      projectId: p,
    });
    const replaced = await putProject(p, 'order-shipped', {
      subject: 'Sent {{order}}',
      text: 'Order {{order}}',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: created.body.id,
      subject: 'Sent {{order}}',
      text: 'Order {{order}}',
      html: null,
    });
    const list = await call(h, 'GET', `/api/admin/projects/${p}/mail/templates`, undefined, {
      projectId: p,
      admin: true,
    });
    expect(list.body.map((t: { key: string }) => t.key)).toEqual(['order-shipped']);
    const one = await call(h, 'GET', `/api/admin/projects/${p}/mail/templates/order-shipped`, undefined, {
      projectId: p,
      admin: true,
    });
    expect(one.body.id).toBe(created.body.id);
    const del = await call(h, 'DELETE', `/api/admin/projects/${p}/mail/templates/order-shipped`, undefined, {
      projectId: p,
      admin: true,
    });
    expect(del.status).toBe(200);
    expect(await h.stored.templateCount(p)).toBe(0);
    const again = await call(
      h,
      'DELETE',
      `/api/admin/projects/${p}/mail/templates/order-shipped`,
      undefined,
      { projectId: p, admin: true },
    );
    expect(again.status).toBe(404);
  });

  it('deletes a template once when deletes race: one 200, the others 404 (found by the concurrent sweep)', async () => {
    const p = newProjectId();
    expect((await putProject(p, 'raced', { subject: 'Hi', text: 'Hi' })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(h, 'DELETE', `/api/admin/projects/${p}/mail/templates/raced`, undefined, {
          projectId: p,
          admin: true,
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
  });

  it('refuses a project path that differs from the asserted project, and non-admin callers', async () => {
    const p = newProjectId();
    const other = newProjectId();
    const r = await call(
      h,
      'PUT',
      `/api/admin/projects/${other}/mail/templates/x`,
      { subject: 's', text: 't' },
      { projectId: p, admin: true },
    );
    expect(r.status).toBe(404);
    const notAdmin = await call(
      h,
      'PUT',
      `/api/admin/mail/templates/x`,
      { subject: 's', text: 't' },
      { projectId: p, keyType: 'secret' },
    );
    expect(notAdmin.status).toBe(401);
  });

  it.each([
    ['no subject', { html: '<p>x</p>' }],
    ['no body', { subject: 's' }],
    ['html and mjml together', { subject: 's', html: '<p>x</p>', mjml: '<mjml><mj-body></mj-body></mjml>' }],
    ['a subject with CR/LF', { subject: 'a\nBcc: x@example.com', text: 't' }],
    ['mustache that does not parse', { subject: 's', html: '{{#open}} never closed' }],
    ['an unknown field', { subject: 's', text: 't', from: 'x@example.com' }],
    ['a NUL character in the body', { subject: 's', text: 'a\u0000b' }],
    ['a NUL character in the name', { name: 'n\u0000', subject: 's', text: 't' }],
  ])('refuses %s with 400', async (_n, body) => {
    const p = newProjectId();
    const r = await putProject(p, 'k', body);
    expect(r.status).toBe(400);
  });

  it("refuses MJML that does not compile, with the compiler's message", async () => {
    const p = newProjectId();
    const r = await putProject(p, 'bad-mjml', {
      subject: 's',
      mjml: '<mjml><mj-body><mj-section><mj-column><mj-text foo="bar">x</mj-text></mj-column></mj-section></mj-body></mjml>',
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_MJML');
    expect(r.body.message).toContain('Attribute foo is illegal');
    expect(r.body.message).not.toContain('/work/');
    expect(await h.stored.templateCount(p)).toBe(0);
  });

  it('refuses an invalid key', async () => {
    const r = await putProject(newProjectId(), '..%2Fx', { subject: 's', text: 't' });
    expect(r.status).toBe(400);
  });
});

describe('template mode', () => {
  it('renders a template by id: escaped, raw and nested variables; javascript: URLs emptied', async () => {
    const p = newProjectId();
    const t = await putProject(p, 'render', {
      subject: 'Hi {{user.name}}',
      html: '<p>e={{x}}</p><p>r={{{x}}}</p><a id="l" href="{{link}}">go</a><a id="r" href="{{{actionUrl}}}">raw</a>',
      text: 'Hi {{user.name}} {{x}}',
    });
    const to = uniqueAddress('render');
    const r = await sendAs(h, p, {
      to,
      templateId: t.body.id,
      variables: {
        x: '<b>bold</b>',
        user: { name: 'Ann & Bob' },
        link: 'javascript:alert(1)',
        actionUrl: 'JaVaScRiPt:alert(2)',
      },
    });
    expect(r.status).toBe(200);
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Hi Ann & Bob');
    expect(m.HTML).toContain('<p>e=&lt;b&gt;bold&lt;&#x2F;b&gt;</p>');
    expect(m.HTML).toContain('<p>r=<b>bold</b></p>');
    expect(m.HTML).toContain('<a id="l" href="">');
    expect(m.HTML).toContain('<a id="r" href="">');
    expect(m.HTML.toLowerCase()).not.toContain('javascript:');
    expect(m.Text.trim()).toBe('Hi Ann & Bob <b>bold</b>');
  });

  it("does not find another project's template by id (404), but finds a global one", async () => {
    const owner = newProjectId();
    const other = newProjectId();
    const t = await putProject(owner, 'private', { subject: 'private', text: 'x' });
    expect((await sendAs(h, other, { to: uniqueAddress(), templateId: t.body.id })).status).toBe(404);
    const key = uniqueKey('glob');
    const g = await putGlobal(key, { subject: 'global {{n}}', text: 'g' });
    expect(g.status).toBe(201);
    const to = uniqueAddress('globid');
    expect((await sendAs(h, other, { to, templateId: g.body.id, variables: { n: 1 } })).status).toBe(200);
    expect((await h.mailpit.waitFor(to)).Subject).toBe('global 1');
    await call(h, 'DELETE', `/api/admin/mail/templates/${key}`, undefined, { admin: true });
  });

  it('resolves a name: project override, then global, then the legacy embedded template', async () => {
    const p = newProjectId();
    const other = newProjectId();
    // Legacy embedded `notification` (the test DB has no global one).
    let to = uniqueAddress('legacy');
    expect(
      (
        await sendAs(h, p, {
          to,
          templateName: 'notification',
          variables: { title: 'Legacy title', message: 'm' },
        })
      ).status,
    ).toBe(200);
    expect((await h.mailpit.waitFor(to)).Subject).toBe('Legacy title');

    await putGlobal('notification', { subject: 'Global {{title}}', text: 'g' });
    to = uniqueAddress('global');
    await sendAs(h, p, { to, templateName: 'notification', variables: { title: 'T' } });
    expect((await h.mailpit.waitFor(to)).Subject).toBe('Global T');

    await putProject(p, 'notification', { name: 'My notice', subject: 'Project {{title}}', text: 'p' });
    to = uniqueAddress('project');
    await sendAs(h, p, { to, templateName: 'notification', variables: { title: 'T' } });
    expect((await h.mailpit.waitFor(to)).Subject).toBe('Project T');

    // By name as well as by key; another project still gets the global one.
    to = uniqueAddress('byname');
    await sendAs(h, p, { to, templateName: 'My notice', variables: { title: 'N' } });
    expect((await h.mailpit.waitFor(to)).Subject).toBe('Project N');
    to = uniqueAddress('otherproj');
    await sendAs(h, other, { to, templateName: 'notification', variables: { title: 'T' } });
    expect((await h.mailpit.waitFor(to)).Subject).toBe('Global T');

    expect(
      (await call(h, 'DELETE', '/api/admin/mail/templates/notification', undefined, { admin: true })).status,
    ).toBe(200);
    to = uniqueAddress('legacyagain');
    await sendAs(h, other, { to, templateName: 'notification', variables: { title: 'Back' } });
    expect((await h.mailpit.waitFor(to)).Subject).toBe('Back');
  });

  it('answers 400 when the subject or body is empty after substitution', async () => {
    const p = newProjectId();
    const r = await sendAs(h, p, {
      to: uniqueAddress(),
      templateName: 'notification',
      variables: { message: 'no title' },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('EMPTY_SUBJECT');
    await putProject(p, 'empty-body', { subject: 'ok', html: '<p>{{body}}</p>' });
    const b = await sendAs(h, p, { to: uniqueAddress(), templateName: 'empty-body' });
    expect(b.status).toBe(400);
    expect(b.body.code).toBe('EMPTY_BODY');
    const month = new Date().toISOString().slice(0, 7);
    expect(await h.stored.usage(p, `month:${month}`)).toBe(0);
  });

  it('keeps a CR/LF from variables out of the headers', async () => {
    const p = newProjectId();
    await putProject(p, 'inj', { subject: 'Hello {{name}}', text: 'body' });
    const to = uniqueAddress('inj');
    const victim = uniqueAddress('victim');
    const r = await sendAs(h, p, {
      to,
      templateName: 'inj',
      variables: { name: `x\r\nBcc: ${victim}\r\nX-Evil: 1` },
    });
    expect(r.status).toBe(200);
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe(`Hello x Bcc: ${victim} X-Evil: 1`);
    expect(m.Bcc ?? []).toEqual([]);
    const headers = await h.mailpit.headers(m.ID);
    expect(headers['X-Evil']).toBeUndefined();
    expect(await h.mailpit.countAfter(victim, 300)).toBe(0);
  });

  it('sends an MJML template as compiled HTML with variables substituted', async () => {
    const p = newProjectId();
    const put = await putProject(p, 'mj', {
      subject: 'MJML {{name}}',
      mjml: '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{name}}</mj-text><mj-button href="{{ctaUrl}}">Open</mj-button></mj-column></mj-section></mj-body></mjml>',
    });
    expect(put.status).toBe(201);
    expect(put.body.compiledHtml).toContain('<!doctype html>');
    const to = uniqueAddress('mjml');
    expect(
      (
        await sendAs(h, p, {
          to,
          templateName: 'mj',
          variables: { name: '<Zoe>', ctaUrl: 'https://example.com/a' },
        })
      ).status,
    ).toBe(200);
    const m = await h.mailpit.waitFor(to);
    expect(m.HTML).toContain('Hello &lt;Zoe&gt;');
    expect(m.HTML).toContain('href="https:&#x2F;&#x2F;example.com&#x2F;a"');
  });
});
