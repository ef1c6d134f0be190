import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_TOKEN, BASE_URL, client, createProject } from '../support/e2e';
import { PeerProxy, alert, consoleContext, launchChromium, shot, violations } from './console-support';

/**
 * Issue 16, the web console in a real browser (Debian's chromium, headless, driven by
 * playwright-core): sign-in with the platform admin token (console accounts and roles:
 * console-members.test.ts), a project, a collection with RLS, a document inserted through the
 * public API seen, edited, trashed and restored in the console, a key rotation the API then
 * enforces, the console's CSP, and no request to any other origin.
 *
 * `CONSOLE_SCREENSHOTS=docs` also writes the screenshots of docs/console.md.
 */

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let browser: Browser;
let context: BrowserContext;
const proxy = new PeerProxy();
let origin = '';
/** Every URL any page of the context asked for, to prove the console calls nothing else. */
const requested: string[] = [];

beforeAll(async () => {
  origin = await proxy.start(new URL(BASE_URL));
  browser = await launchChromium();
  context = await consoleContext(browser);
  context.on('request', (r) => void requested.push(r.url()));
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await proxy.stop();
});

/** Signs in on the sign-in page with the platform admin token (the second way, behind a disclosure). */
async function signInWithToken(page: Page, token: string): Promise<void> {
  const field = page.getByLabel('Platform admin token');
  if (!(await field.isVisible()))
    await page.getByText('Sign in with the platform admin token instead').click();
  await field.fill(token);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
}

/** Opens `path` of the console and signs in there with the admin token. */
async function signedIn(path = '/'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/console${path}`);
  await signInWithToken(page, ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

describe('the web console', () => {
  const call = client();

  it('is served under a strict Content-Security-Policy, assets cached for good, index.html revalidated', async () => {
    const page = await context.newPage();
    const answer = await page.goto(`${origin}/console/projects/unknown/collections`);
    expect(answer?.status()).toBe(200);
    const headers = answer!.headers();
    const csp = headers['content-security-policy'] ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(headers['cache-control']).toBe('no-cache');
    expect(headers['x-frame-options']).toBe('DENY');
    const html = await (await fetch(`${BASE_URL}/console/`)).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const js = await fetch(`${BASE_URL}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('ratelimit-limit')).toBeNull(); // static files are not API calls
    await page.getByLabel('Email').waitFor();
    await shot(page, 'signin');
    expect(await violations(page)).toEqual([]);
    await page.close();
  });

  it('refuses a wrong admin token, and keeps the right one in memory only', async () => {
    const page = await context.newPage();
    await page.goto(`${origin}/console/`);
    await signInWithToken(page, `${ADMIN_TOKEN}-wrong`);
    await alert(page, 'The gateway refused this token').waitFor();
    await alert(page, 'ADMIN_TOKEN_REQUIRED').waitFor();

    await signInWithToken(page, ADMIN_TOKEN);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const stored = await page.evaluate(
      '({ local: JSON.stringify(window.localStorage), session: JSON.stringify(window.sessionStorage), cookie: document.cookie })',
    );
    expect(stored).toEqual({ local: '{}', session: '{}', cookie: '' });
    expect((await context.cookies()).length).toBe(0);
    await page.reload();
    await page.getByLabel('Email').waitFor(); // a reload asks again
    await page.getByText('Sign in with the platform admin token instead').waitFor();
    await page.close();
  });

  it('creates a project, registers a collection with RLS, and manages a document inserted through the API', async () => {
    const page = await signedIn();
    await shot(page, 'projects');
    const name = `console-${Date.now()}`;
    await page.getByRole('button', { name: 'Create a project' }).click();
    const create = page.getByRole('dialog', { name: 'Create a project' });
    await create.getByLabel('Name').fill(name);
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    const created = page.getByRole('dialog', { name: `Project ${name} created` });
    const secretKey = await created.getByLabel(/^Secret key/).inputValue();
    const publishableKey = await created.getByLabel(/^Publishable key/).inputValue();
    expect(secretKey).toMatch(/^sk_live_/);
    expect(publishableKey).toMatch(/^pk_live_/);
    await created.getByRole('button', { name: /open the project/ }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.getByText(/0 of 100,000/).waitFor();
    await shot(page, 'project');
    const projectId = /\/projects\/([a-f0-9]{24})/.exec(page.url())?.[1] ?? '';
    expect(projectId).toMatch(/^[a-f0-9]{24}$/);

    // The collection: a schema with a required String and an indexed Number, RLS private on userId.
    await page
      .getByRole('navigation', { name: `Project ${name}` })
      .getByRole('link', { name: 'Collections' })
      .click();
    await page.getByRole('link', { name: 'Register a collection' }).click();
    await page.getByRole('textbox', { name: 'Name' }).first().fill('posts');
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByRole('group', { name: 'Field field 1' }).getByLabel('Name').fill('title');
    await page.getByRole('group', { name: 'Field title' }).getByLabel('Required').check();
    await page.getByRole('button', { name: 'Add a field' }).click();
    const second = page.getByRole('group', { name: 'Field field 2' });
    await second.getByLabel('Name').fill('score');
    await page.getByRole('group', { name: 'Field score' }).getByLabel('Type').selectOption('Number');
    await page.getByRole('group', { name: 'Field score' }).getByLabel('Index').check();
    await page.getByLabel(/^Enabled/).check();
    await page.getByLabel('Mode').selectOption('private');
    await page.getByLabel('Owner field', { exact: true }).fill('userId');
    await shot(page, 'collection');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: /Documents of\s+posts/ }).waitFor();
    const registered = await call('GET', `/api/admin/projects/${projectId}/collections/posts`, {
      admin: true,
    });
    expect(registered.body).toMatchObject({
      rls: { enabled: true, mode: 'private', ownerField: 'userId' },
      schema: {
        fields: [
          { key: 'title', type: 'String', required: true },
          { key: 'score', type: 'Number', index: true },
        ],
      },
    });

    // A document inserted through the public API with the secret key shows in the table.
    const owner = '64b7f0c2a1b2c3d4e5f60718';
    const inserted = await call('POST', '/api/data/posts', {
      key: secretKey,
      body: { title: 'Hello from the API', score: 7, userId: owner },
    });
    expect(inserted.status).toBe(201);
    const docId = inserted.body._id as string;
    await page.getByRole('button', { name: 'Apply' }).click();
    const row = page.getByRole('row', { name: new RegExp(docId) });
    await row.getByText('Hello from the API').waitFor();

    // Filters reach the API: a filter that matches nothing empties the table.
    await page.getByRole('button', { name: 'Add a filter' }).click();
    await page.getByLabel('Field', { exact: true }).fill('score');
    await page.getByLabel('Condition').selectOption('gt');
    await page.getByLabel('Value').fill('10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No document matches these filters.').waitFor();
    await page.getByLabel('Value').fill('5');
    await page.getByRole('button', { name: 'Apply' }).click();
    await row.waitFor();
    await shot(page, 'documents');

    // Edit as JSON: the API's validation error shows beside the editor, then a valid save lands.
    await page.getByRole('link', { name: docId }).click();
    const editor = page.getByLabel(/^Fields \(JSON\)/);
    await editor.waitFor();
    expect(JSON.parse(await editor.inputValue())).toEqual({
      title: 'Hello from the API',
      score: 7,
      userId: owner,
    });
    await editor.fill(JSON.stringify({ title: 42, score: 7, userId: owner }));
    await page.getByRole('button', { name: 'Save' }).click();
    await alert(page, 'VALIDATION_FAILED').waitFor();
    await alert(page, /title: must be a String/).waitFor();
    await editor.fill('{ "title": "broken", }');
    await page.getByRole('button', { name: 'Save' }).click();
    await alert(page, 'Not valid JSON').waitFor();
    await editor.fill(JSON.stringify({ title: 'Edited in the console', score: 8, userId: owner }, null, 2));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await shot(page, 'document');
    const edited = await call('GET', `/api/data/posts/${docId}`, { key: secretKey });
    expect(edited.body).toMatchObject({ title: 'Edited in the console', score: 8, userId: owner });

    // Trash and restore, in the document's page and in the table with trashed documents shown.
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByText(/in trash since/).waitFor();
    expect((await call('GET', `/api/data/posts/${docId}`, { key: secretKey })).status).toBe(404);
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored.').waitFor();
    expect((await call('GET', `/api/data/posts/${docId}`, { key: secretKey })).status).toBe(200);
    await page.getByRole('link', { name: /Documents of posts/ }).click();
    await page.getByRole('button', { name: `Move to trash ${docId}` }).click();
    await page.getByText(`Document ${docId} moved to the trash.`).waitFor();
    await page.getByText('No document.').waitFor();
    await page.getByLabel('Include trashed').check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('row', { name: new RegExp(docId) })
      .getByText('in trash')
      .waitFor();
    await page.getByRole('button', { name: `Restore ${docId}` }).click();
    await page.getByText(`Document ${docId} restored.`).waitFor();
    expect((await call('GET', `/api/data/posts/${docId}`, { key: secretKey })).status).toBe(200);

    // RLS is never turned off without a confirmation.
    await page.getByRole('link', { name: 'Schema and RLS' }).click();
    await page.getByLabel(/^Enabled/).uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    const confirm = page.getByRole('dialog', { name: 'Turn row-level security off for posts?' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    const still = await call('GET', `/api/admin/projects/${projectId}/collections/posts`, { admin: true });
    expect(still.body.rls.enabled).toBe(true);

    expect(await violations(page)).toEqual([]);
    await page.close();
  }, 120_000);

  it('rotates the secret key from a deep link: the new key is shown once, the old one is refused', async () => {
    const p = await createProject({}, 'console-rotate');
    // A reload or a link into the console asks for the token, then comes back to the page.
    const page = await signedIn(`/projects/${p.id}/keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Rotate the secret key' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the secret key?' });
    await confirm.getByRole('button', { name: 'Rotate' }).click();
    const fresh = await page
      .getByRole('dialog', { name: 'New key' })
      .getByLabel(/^Secret key/)
      .inputValue();
    expect(fresh).toMatch(/^sk_live_/);
    expect(fresh).not.toBe(p.secretKey);
    await shot(page, 'keys');

    const old = await call('GET', '/api/data/anything', { key: p.secretKey });
    expect([old.status, old.body.code]).toEqual([401, 'INVALID_API_KEY']);
    const now = await call('GET', '/api/data/anything', { key: fresh });
    expect([now.status, now.body.code]).toEqual([404, 'COLLECTION_NOT_FOUND']);
    await page.getByRole('dialog', { name: 'New key' }).getByRole('button', { name: 'Done' }).click();
    await page.getByText(`${fresh.slice(0, 12)}…`).waitFor();
    expect(await violations(page)).toEqual([]);
    await page.close();
  });

  it('uploads a file with a progress bar, previews the image and deletes it', async () => {
    const p = await createProject({}, 'console-files');
    const page = await signedIn(`/projects/${p.id}/files`);
    await page.getByRole('heading', { name: 'Files' }).waitFor();
    await page
      .getByLabel('File to upload')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(/^Uploaded dot\.png as /).waitFor();
    // Loaded from the gateway's /files on the console's own origin (a function, not a string:
    // the console's CSP forbids eval, which Playwright's polling of a string would need).
    const width = await page.getByRole('img', { name: 'Preview of dot.png' }).evaluate(
      (img: {
        complete: boolean;
        naturalWidth: number;
        addEventListener: (e: string, f: () => void) => void;
      }) =>
        new Promise<number>((resolve) => {
          if (img.complete) resolve(img.naturalWidth);
          else img.addEventListener('load', () => resolve(img.naturalWidth));
        }),
    );
    expect(width).toBe(1);
    await shot(page, 'files');
    const listed = await call('GET', `/api/admin/projects/${p.id}/files`, { admin: true });
    expect(listed.body.data.items).toMatchObject([
      { originalName: 'dot.png', contentType: 'image/png', size: PNG.length },
    ]);

    await page.getByRole('button', { name: 'Delete dot.png' }).click();
    await page
      .getByRole('dialog', { name: 'Delete dot.png?' })
      .getByRole('button', { name: 'Delete the file' })
      .click();
    await page.getByText('Deleted dot.png.').waitFor();
    await page.getByText('No files yet.').waitFor();
    expect((await call('GET', `/api/admin/projects/${p.id}/files`, { admin: true })).body.data.items).toEqual(
      [],
    );
    expect(await violations(page)).toEqual([]);
    await page.close();
  });

  it('asks no host other than the gateway', () => {
    expect(requested.length).toBeGreaterThan(0);
    const elsewhere = requested.filter((u) => new URL(u).origin !== origin);
    expect(elsewhere).toEqual([]);
  });
});
