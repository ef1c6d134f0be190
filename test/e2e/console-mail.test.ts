import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { ADMIN_TOKEN, BASE_URL, MAIL_API_URL, client, createProject } from '../support/e2e';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { PeerProxy, alert, consoleContext, launchChromium, shot, violations } from './console-support';

/**
 * Issue 16, the console's mail pages in a real browser: a project template written in MJML with
 * a mustache variable, its live preview rendered by the server from sample variables and shown
 * in the sandboxed preview frame (where the template's own script never runs, in an opaque
 * origin), a test send found in Mailpit and in the sent-mail log (cursor paging), deletion; the
 * global templates of the platform admin.
 */
let browser: Browser;
let context: BrowserContext;
const proxy = new PeerProxy();
const mailpit = new Mailpit(MAIL_API_URL);
let origin = '';
/** Answers from any origin but the gateway's (the preview must load nothing from elsewhere). */
const foreign: string[] = [];

beforeAll(async () => {
  origin = await proxy.start(new URL(BASE_URL));
  browser = await launchChromium();
  context = await consoleContext(browser);
  context.on('response', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('about:'))
      foreign.push(r.url());
  });
  // What the console's window is posted: a script of the template reaching it would show here.
  await context.addInitScript({
    content: `window.received = [];
      window.addEventListener('message', (e) =>
        window.received.push(typeof e.data === 'string' ? e.data : String(e.data && e.data.type)));`,
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await proxy.stop();
});

async function signedIn(path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/console${path}`);
  const field = page.getByLabel('Platform admin token');
  if (!(await field.isVisible()))
    await page.getByText('Sign in with the platform admin token instead').click();
  await field.fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/** The template's script, were it to run anywhere: it would mark the mail, the title and the console. */
const HOSTILE =
  '<mj-raw><script>document.title = "script ran"; document.body.setAttribute("data-ran", "yes");' +
  ' try { parent.postMessage("script-ran", "*"); top.postMessage("script-ran", "*"); } catch (e) {}' +
  '</script><img src="data:," onerror="document.title = \'onerror ran\'" alt=""></mj-raw>';
const MJML =
  '<mjml><mj-body><mj-section><mj-column>' +
  '<mj-text font-size="20px">Hello {{name}}</mj-text>' +
  '<mj-text>Your plan: {{plan}}</mj-text>' +
  HOSTILE +
  '</mj-column></mj-section></mj-body></mjml>';

/** The preview page's frame and the mail's frame inside it. */
function previewFrames(page: Page) {
  const outer = page.locator('iframe[title="Preview of the HTML part"]');
  const mail = page.frameLocator('iframe[title="Preview of the HTML part"]').frameLocator('iframe');
  return { outer, mail };
}

function frameByUrl(page: Page, test: (url: string) => boolean): Frame {
  const f = page.frames().find((x) => test(x.url()));
  if (!f)
    throw new Error(
      `no frame among ${page
        .frames()
        .map((x) => x.url())
        .join(', ')}`,
    );
  return f;
}

describe('the console’s mail pages', () => {
  const call = client();

  it('edits an MJML template with a live, sandboxed preview, sends a test and finds it in Mailpit and the log', async () => {
    const name = `console-mail-${Date.now().toString(36)}`;
    const p = await createProject({}, name);
    const page = await signedIn(`/projects/${p.id}/mail`);
    await page.getByRole('heading', { name: 'Mail', exact: true }).waitFor();
    await page.getByText('No template yet.').waitFor();

    // A new template: MJML with mustache variables, sample values typed as JSON.
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    const key = `welcome-${Date.now().toString(36)}`;
    await page.getByLabel('Key').fill(key);
    await page.getByLabel('Subject').fill('Welcome, {{name}}');
    await page.getByLabel('MJML', { exact: true }).fill(MJML);
    await page.getByLabel('Plain text part').fill('Hello {{name}}, plan {{plan}}');
    const variables = page.getByLabel('Sample variables (JSON)');
    await variables.fill('{ "name": "Ada Lovelace" }');
    const { outer, mail } = previewFrames(page);
    await mail.getByText('Hello Ada Lovelace').waitFor();
    await page.getByTestId('preview-subject').getByText('Welcome, Ada Lovelace').waitFor();
    // A variable the sample lacks is added from the template, then edited: the preview follows.
    await page.getByRole('button', { name: 'Add the template’s variables' }).click();
    expect(JSON.parse(await variables.inputValue())).toEqual({ name: 'Ada Lovelace', plan: '[plan]' });
    await variables.fill('{ "name": "Grace <Hopper>", "plan": "Pro" }');
    await mail.getByText('Hello Grace <Hopper>').waitFor(); // escaped by mustache, shown as text
    await mail.getByText('Your plan: Pro').waitFor();
    await page.getByText('Hello Grace <Hopper>, plan Pro').waitFor(); // the text part
    // Invalid sample JSON is said beside the editor, and no preview is asked for.
    await variables.fill('{ "name": ');
    await page.getByText(/^Not valid JSON/).waitFor();
    await variables.fill('{ "name": "Grace", "plan": "Pro" }');
    await mail.getByText('Hello Grace', { exact: true }).waitFor();
    // MJML that does not compile: the compiler's message, the last good render kept.
    await page.getByLabel('MJML', { exact: true }).fill(MJML.replace('<mj-text>', '<mj-texxt>'));
    await alert(page, /The template does not render: MJML does not compile/).waitFor();
    await page.getByLabel('MJML', { exact: true }).fill(MJML);
    await mail.getByText('Hello Grace', { exact: true }).waitFor();

    // The isolation: the preview page is sandboxed without allow-same-origin (an opaque origin,
    // no cookies), the mail inside it is sandboxed without scripts, and its script never ran.
    expect(await outer.getAttribute('sandbox')).toBe('allow-scripts');
    expect(await outer.getAttribute('src')).toBe('/console/preview.html');
    const previewPage = frameByUrl(page, (u) => u.endsWith('/console/preview.html'));
    expect(await previewPage.evaluate('window.origin')).toBe('null');
    expect(
      await previewPage.evaluate(
        '(() => { try { return document.cookie, "readable"; } catch (e) { return e.name; } })()',
      ),
    ).toBe('SecurityError');
    expect(await previewPage.locator('iframe').getAttribute('sandbox')).toBe('');
    const mailFrame = frameByUrl(page, (u) => u === 'about:srcdoc');
    expect(await mailFrame.locator('script').count()).toBe(1); // it is there, and inert
    expect(await mailFrame.title()).not.toMatch(/ran/);
    expect(await mailFrame.locator('body').getAttribute('data-ran')).toBeNull();
    expect(await page.title()).toMatch(/^New template/);
    expect(await page.evaluate<string[]>('window.received')).not.toContain('script-ran');
    await alert(page, /does not render/).waitFor({ state: 'detached' });
    await outer.scrollIntoViewIfNeeded();
    await shot(page, 'mail-editor');

    // Saved: the address names the template; a test goes out with the sample variables.
    await page.getByRole('button', { name: 'Create the template' }).click();
    await page.getByRole('heading', { name: `Template ${key}` }).waitFor();
    expect(page.url()).toContain(`/projects/${p.id}/mail/templates/${key}`);
    expect(JSON.parse(await page.getByLabel('Sample variables (JSON)').inputValue())).toEqual({
      name: 'Grace',
      plan: 'Pro',
    }); // kept across the save
    const stored = await call('GET', `/api/admin/projects/${p.id}/mail/templates/${key}`, { admin: true });
    expect(stored.body).toMatchObject({ key, subject: 'Welcome, {{name}}', mjml: MJML, html: null });
    const to = uniqueAddress('console-test');
    await page.getByRole('form', { name: 'Send a test' }).getByLabel('To').fill(to);
    await page.getByRole('button', { name: 'Send the test' }).click();
    await page.getByText(new RegExp(`^Test mail sent to ${to.replace(/[.+]/g, '\\$&')}`)).waitFor();
    const delivered = await mailpit.waitFor(to);
    expect(delivered.Subject).toBe('Welcome, Grace');
    expect(delivered.HTML).toContain('Hello Grace');
    expect(delivered.Text).toContain('Hello Grace, plan Pro');

    // An edit: a test waits for the save (it sends the saved template).
    await page.getByLabel('Subject').fill('Welcome aboard, {{name}}');
    await page.getByText('Save first: a test sends the saved template.').waitFor();
    expect(await page.getByRole('button', { name: 'Send the test' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    expect(
      (await call('GET', `/api/admin/projects/${p.id}/mail/templates/${key}`, { admin: true })).body.subject,
    ).toBe('Welcome aboard, {{name}}');

    // The sent-mail log: 20 direct sends after the test push it to the second page.
    for (let i = 0; i < 20; i++) {
      const r = await call('POST', '/api/mail/send', {
        key: p.secretKey,
        body: { to: uniqueAddress('console-log'), subject: `Direct ${i}`, text: 'x' },
      });
      expect(r.status).toBe(200);
    }
    await page.getByRole('link', { name: 'Sent mail', exact: true }).click();
    await page.getByRole('heading', { name: 'Mail', exact: true }).waitFor();
    const table = page.getByRole('table', { name: `Sent mail of ${name}` });
    await table.getByRole('row').nth(20).waitFor(); // header + 20
    expect(await table.getByRole('row', { name: new RegExp(to) }).count()).toBe(0);
    await page.getByRole('button', { name: 'Next page' }).click();
    const testRow = table.getByRole('row', { name: new RegExp(to) });
    await testRow.waitFor();
    await testRow.getByText(key).waitFor();
    await testRow.getByText('sent', { exact: true }).waitFor();
    await shot(page, 'mail-log');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await table
      .getByRole('row', { name: /Direct|console-log/ })
      .first()
      .waitFor();

    // Deletion from the list, after a confirmation.
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await page.getByRole('button', { name: `Delete the template ${key}` }).click();
    await page
      .getByRole('dialog', { name: `Delete the template ${key}?` })
      .getByRole('button', { name: 'Delete the template' })
      .click();
    await page.getByText(`Deleted the template ${key}.`).waitFor();
    await page.getByText('No template yet.').waitFor();
    const gone = await call('GET', `/api/admin/projects/${p.id}/mail/templates/${key}`, { admin: true });
    expect([gone.status, gone.body.code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);

    expect(await violations(page)).toEqual([]);
    expect(await page.evaluate<string[]>('window.received')).not.toContain('script-ran');
    await page.close();
  }, 120_000);

  it('edits a global template (platform admin) with the same editor and preview', async () => {
    const page = await signedIn('/');
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Mail templates' })
      .click();
    await page.getByRole('heading', { name: 'Global mail templates' }).waitFor();
    await page.getByRole('link', { name: 'New template' }).click();
    const key = `e2e-global-${Date.now().toString(36)}`;
    try {
      await page.getByLabel('Key').fill(key);
      await page.getByLabel('Subject').fill('Notice for {{name}}');
      await page.getByRole('radio', { name: 'HTML', exact: true }).check();
      await page
        .getByRole('textbox', { name: 'HTML', exact: true })
        .fill('<p style="color:#0b4ea2">Notice for {{name}}</p>');
      await page.getByLabel('Sample variables (JSON)').fill('{ "name": "every project" }');
      const { mail } = previewFrames(page);
      await mail.getByText('Notice for every project').waitFor();
      await page.getByText(/A test send is a project’s/).waitFor();
      await page.getByRole('button', { name: 'Create the template' }).click();
      await page.getByRole('heading', { name: `Template ${key}` }).waitFor();
      const stored = await call('GET', `/api/admin/mail/templates/${key}`, { admin: true });
      expect(stored.body).toMatchObject({ key, scope: 'global', html: expect.stringContaining('{{name}}') });
      await page.getByRole('button', { name: 'Delete the template' }).click();
      await page
        .getByRole('dialog', { name: `Delete the template ${key}?` })
        .getByRole('button', { name: 'Delete the template' })
        .click();
      await page.getByRole('heading', { name: 'Global mail templates' }).waitFor();
      expect((await call('GET', `/api/admin/mail/templates/${key}`, { admin: true })).status).toBe(404);
      expect(await violations(page)).toEqual([]);
    } finally {
      await call('DELETE', `/api/admin/mail/templates/${key}`, { admin: true });
      await page.close();
    }
  }, 60_000);

  it('serves the preview page under its own CSP, framed by the console only', async () => {
    const r = await fetch(`${BASE_URL}/console/preview.html`);
    expect(r.status).toBe(200);
    const csp = r.headers.get('content-security-policy') ?? '';
    for (const d of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'unsafe-inline'",
      'img-src https: data:',
      "frame-ancestors 'self'",
      'sandbox allow-scripts',
    ])
      expect(csp).toContain(d);
    expect(csp).not.toMatch(/connect-src|unsafe-eval/);
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const html = await r.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const app = await fetch(`${BASE_URL}/console/`);
    expect(app.headers.get('content-security-policy')).toContain("frame-src 'self'");
    expect(app.headers.get('x-frame-options')).toBe('DENY');
  });

  it('loaded nothing from another origin (the MJML web font link is refused by the preview’s CSP)', () => {
    expect(foreign).toEqual([]);
  });
});
