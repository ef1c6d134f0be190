import type { Browser, BrowserContext, Page } from 'playwright-core';
import { csrfTokenFor } from '@baas/common';
import { BASE_URL, MAIL_API_URL, client, createProject, type TestProject } from '../support/e2e';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { PeerProxy, alert, consoleContext, launchChromium, shot, violations } from './console-support';

/**
 * Issue 16, console accounts in a real browser: a platform admin signs in with email and
 * password and invites people to a project from its Members page; the invitation mail's link
 * opens the accept page, where a new member chooses a password and lands signed in seeing only
 * that project. A viewer signs in and finds nothing to change, and the API refuses a change made
 * with their session (valid CSRF token and all). The Accounts page ends sessions, creates,
 * promotes and deletes accounts; a forgotten password is reset through the mailed link.
 */
const mailpit = new Mailpit(MAIL_API_URL);
const call = client();
const PASSWORD = 'console-e2e-password';

let browser: Browser;
const proxy = new PeerProxy();
const contexts: BrowserContext[] = [];
let origin = '';
/** Every URL any page asked for: the console calls nothing but the gateway. */
const requested: string[] = [];

let p: TestProject;
let other: TestProject;
const pName = `members-${Date.now().toString(36)}`;
const otherName = `${pName}-other`;
const adminEmail = uniqueAddress('console-admin');
const developerEmail = uniqueAddress('console-dev');
const viewerEmail = uniqueAddress('console-viewer');

/** A fresh browser (own cookie jar) with a page on the console. */
async function browserPage(path = '/'): Promise<Page> {
  const context = await consoleContext(browser);
  context.on('request', (r) => void requested.push(r.url()));
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${origin}/console${path}`);
  return page;
}

async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The invitation link of the newest mail to `email`: its address and its token. */
async function invitationLink(email: string): Promise<{ url: string; token: string }> {
  const mail = await mailpit.waitFor(email, { timeoutMs: 20_000 });
  const m = /(https?:\/\/[^\s"<>]+)#\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.Text);
  if (!m) throw new Error(`no invitation link in the mail:\n${mail.Text}`);
  expect(mail.HTML).toContain(m[2]);
  return { url: m[1]!, token: m[2]! };
}

/** The session cookie of a browser context, and the API call made with it (as a script would). */
async function sessionOf(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'baas_console');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api' });
  return cookie!.value;
}

function withSession(token: string, csrf = true): Record<string, string> {
  return { cookie: `baas_console=${token}`, ...(csrf ? { 'x-csrf-token': csrfTokenFor(token) } : {}) };
}

beforeAll(async () => {
  origin = await proxy.start(new URL(BASE_URL));
  browser = await launchChromium();
  p = await createProject({}, pName);
  other = await createProject({}, otherName);
  const admin = await call('POST', '/api/admin/console/accounts', {
    admin: true,
    body: { email: adminEmail, password: PASSWORD, platformAdmin: true },
  });
  expect(admin.status).toBe(201);
  // Something on every page, so that a viewer would see row controls if there were any.
  const registered = await call('PUT', `/api/admin/projects/${p.id}/collections/posts`, {
    admin: true,
    body: { schema: { fields: [{ key: 'title', type: 'String' }] }, rls: { enabled: false } },
  });
  expect(registered.status).toBe(201);
  const doc = await call('POST', '/api/data/posts', { key: p.secretKey, body: { title: 'Hello' } });
  expect(doc.status).toBe(201);
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'hello.txt');
  const file = await call('POST', `/api/admin/projects/${p.id}/files`, { admin: true, rawBody: form });
  expect(file.status).toBe(201);
  const user = await call('POST', '/api/userAuth/signup', {
    key: p.publishableKey,
    headers: { 'x-refresh-token-mode': 'header' },
    body: { email: uniqueAddress('console-enduser'), password: PASSWORD },
  });
  expect(user.status).toBe(201);
}, 60_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await proxy.stop();
});

describe('console accounts and roles', () => {
  let adminPage: Page;

  it('a platform admin signs in with email and password and invites people from the Members page', async () => {
    adminPage = await browserPage(`/projects/${p.id}/members`);
    await signInWithPassword(adminPage, adminEmail, PASSWORD);
    await adminPage.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await sessionOf(adminPage)).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const invite = adminPage.getByRole('form', { name: 'Invite a member' });
    for (const [email, role] of [
      [developerEmail, 'developer'],
      [viewerEmail, 'viewer'],
    ] as const) {
      await invite.getByLabel('Email').fill(email);
      await invite.getByLabel('Role').selectOption(role);
      await invite.getByRole('button', { name: 'Send the invitation' }).click();
      await adminPage.getByText(`An invitation was sent to ${email}.`).waitFor();
    }
    const pending = adminPage.getByRole('table', { name: /not yet accepted/ });
    await pending
      .getByRole('row', { name: new RegExp(developerEmail) })
      .getByRole('cell', { name: 'developer', exact: true })
      .waitFor();
    await pending
      .getByRole('row', { name: new RegExp(viewerEmail) })
      .getByRole('cell', { name: 'viewer', exact: true })
      .waitFor();

    // A third invitation, cancelled: its link stops working.
    const cancelled = uniqueAddress('console-cancelled');
    await invite.getByLabel('Email').fill(cancelled);
    await invite.getByRole('button', { name: 'Send the invitation' }).click();
    await adminPage.getByText(`An invitation was sent to ${cancelled}.`).waitFor();
    const { token: cancelledToken } = await invitationLink(cancelled);
    await adminPage.getByRole('button', { name: `Cancel the invitation of ${cancelled}` }).click();
    await adminPage
      .getByRole('dialog', { name: `Cancel the invitation of ${cancelled}?` })
      .getByRole('button', { name: 'Cancel the invitation' })
      .click();
    await adminPage.getByText(`The invitation of ${cancelled} was cancelled.`).waitFor();
    const inspect = await call('POST', '/api/console/invitations/inspect', {
      body: { token: cancelledToken },
    });
    expect([inspect.status, inspect.body.code]).toEqual([404, 'INVITATION_NOT_FOUND']);
  }, 90_000);

  it("the invitation mail's link opens the accept page: a new member chooses a password and sees only the project", async () => {
    const { url, token } = await invitationLink(developerEmail);
    expect(new URL(url).pathname).toBe('/console/');
    const page = await browserPage(`/#/accept-invitation?token=${token}`);
    await page.getByText(`${developerEmail} is invited to the project ${pName} as developer`).waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(`${PASSWORD}-typo`);
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create the account and join' }).click();

    // Signed in, on the projects, which are only P; the token is gone from the address.
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const projects = page.getByRole('table', { name: /Projects/ });
    await projects.getByRole('link', { name: pName, exact: true }).waitFor();
    expect(await projects.getByRole('row').count()).toBe(2); // the header and P
    expect(await projects.getByText(otherName).count()).toBe(0);
    expect(page.url()).not.toContain(token);
    expect(await page.getByRole('button', { name: 'Create a project' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Accounts' }).count()).toBe(0);

    // The link is used up.
    const again = await call('POST', '/api/console/invitations/inspect', { body: { token } });
    expect(again.status).toBe(404);
    // Another project is not found for them, even by its address.
    await page.goto(`${origin}/console/projects/${other.id}`);
    await alert(page, 'PROJECT_NOT_FOUND').waitFor();
    // A developer changes data but not settings, keys or members.
    await page.goto(`${origin}/console/projects/${p.id}/collections`);
    await page.getByRole('link', { name: 'Register a collection' }).waitFor();
    await page.goto(`${origin}/console/projects/${p.id}/keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('button', { name: /Rotate/ }).count()).toBe(0);
    expect(await violations(page)).toEqual([]);
  }, 90_000);

  it('a viewer signs in and finds no control to change anything; the API refuses a change with their session', async () => {
    const { token } = await invitationLink(viewerEmail);
    const accepted = await call('POST', '/api/console/invitations/accept', {
      body: { token, password: PASSWORD },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.memberships).toEqual([{ projectId: p.id, projectName: pName, role: 'viewer' }]);

    const page = await browserPage('/');
    await signInWithPassword(page, viewerEmail, PASSWORD);
    await page.getByRole('link', { name: pName, exact: true }).waitFor();
    const change =
      /create|save|delete|rotate|upload|invite|send|remove|register|new document|trash|restore|change|add a field|insert/i;
    const sections: Array<[string, string]> = [
      ['', 'Usage'],
      ['/settings', 'Settings'],
      ['/keys', 'API keys'],
      ['/collections', 'Collections'],
      ['/collections/posts', 'Collection posts'],
      ['/collections/posts/documents', 'Documents of posts'],
      ['/users', 'Users'],
      ['/users-schema', 'Users schema'],
      ['/files', 'Files'],
      ['/mail', 'Mail'],
      ['/members', 'Members'],
      ['/audit', 'Audit log'],
    ];
    for (const [section, heading] of sections) {
      await page.goto(`${origin}/console/projects/${p.id}${section}`);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      const buttons = await page.getByRole('button').allInnerTexts();
      const links = await page.getByRole('main').getByRole('link').allInnerTexts();
      expect({ section, controls: [...buttons, ...links].filter((t) => change.test(t)) }).toEqual({
        section,
        controls: [],
      });
    }
    // The rows are there (a document, a file, members), only their controls are not.
    await page.goto(`${origin}/console/projects/${p.id}/collections/posts/documents`);
    await page.getByRole('cell', { name: 'Hello' }).waitFor();
    await page.goto(`${origin}/console/projects/${p.id}/members`);
    await page
      .getByRole('row', { name: new RegExp(viewerEmail) })
      .getByRole('cell', { name: 'viewer', exact: true })
      .waitFor();
    await page
      .getByRole('row', { name: new RegExp(developerEmail) })
      .getByRole('cell', { name: 'developer', exact: true })
      .waitFor();

    // The same session, used directly (cookie and a valid CSRF token): a change is refused.
    const session = await sessionOf(page);
    const patch = await call('PATCH', `/api/admin/projects/${p.id}`, {
      headers: withSession(session),
      body: { name: 'renamed by a viewer' },
    });
    expect([patch.status, patch.body.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
    const insert = await call('POST', `/api/admin/projects/${p.id}/documents/posts`, {
      headers: withSession(session),
      body: { title: 'from a viewer' },
    });
    expect([insert.status, insert.body.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
    const read = await call('GET', `/api/admin/projects/${p.id}`, { headers: withSession(session, false) });
    expect([read.status, read.body.name]).toEqual([200, pName]);
    expect(await violations(page)).toEqual([]);

    // Ending the viewer's sessions from the Accounts page signs this browser out.
    await adminPage
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Accounts' })
      .click();
    await adminPage.getByLabel('Email contains').fill(viewerEmail);
    await adminPage.getByRole('button', { name: 'Search' }).click();
    const row = adminPage.getByRole('row', { name: new RegExp(viewerEmail) });
    await row
      .getByRole('listitem')
      .filter({ hasText: new RegExp(`${p.id}\\s+viewer`) })
      .waitFor();
    await row.getByRole('button', { name: `End sessions of ${viewerEmail}` }).click();
    await adminPage
      .getByRole('dialog', { name: `End every session of ${viewerEmail}?` })
      .getByRole('button', { name: 'End the sessions' })
      .click();
    await adminPage.getByText(new RegExp(`^2 sessions of ${viewerEmail} ended\\.$`)).waitFor();
    await page.reload();
    await page.getByLabel('Password').waitFor();
    const after = await call('GET', `/api/admin/projects/${p.id}`, { headers: withSession(session, false) });
    expect(after.status).toBe(401);
  }, 120_000);

  it('the Accounts page creates an account, makes it a platform admin and deletes it', async () => {
    const email = uniqueAddress('console-created');
    await adminPage.getByLabel('Email contains').fill('');
    await adminPage.getByRole('button', { name: 'Search' }).click();
    await adminPage.getByRole('button', { name: 'Create an account' }).click();
    const dialog = adminPage.getByRole('dialog', { name: 'Create an account' });
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await dialog.getByLabel('Repeat the password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await adminPage.getByText(`The account ${email} was created.`).waitFor();
    await shot(adminPage, 'accounts');

    await adminPage.getByLabel('Email contains').fill(email);
    await adminPage.getByRole('button', { name: 'Search' }).click();
    const row = adminPage.getByRole('row', { name: new RegExp(email) });
    await row.getByRole('button', { name: `Make platform admin ${email}` }).click();
    await adminPage
      .getByRole('dialog', { name: `Make ${email} a platform admin?` })
      .getByRole('button', { name: 'Make platform admin' })
      .click();
    await adminPage.getByText(`${email} is now a platform admin.`).waitFor();
    const listed = await call('GET', `/api/admin/console/accounts?search=${encodeURIComponent(email)}`, {
      admin: true,
    });
    expect(listed.body.data.items).toMatchObject([{ email, platformAdmin: true, memberships: [] }]);

    await row.getByRole('button', { name: `Delete ${email}` }).click();
    const confirm = adminPage.getByRole('dialog', { name: `Delete the account ${email}?` });
    await confirm.getByLabel(/to confirm/).fill(email);
    await confirm.getByRole('button', { name: 'Delete the account' }).click();
    await adminPage.getByText(`The account ${email} was deleted.`).waitFor();
    const gone = await call('GET', `/api/admin/console/accounts?search=${encodeURIComponent(email)}`, {
      admin: true,
    });
    expect(gone.body.data.items).toEqual([]);
  }, 60_000);

  it('roles change on the Members page, the last owner stays, members are removed; the log names who did it', async () => {
    await adminPage.goto(`${origin}/console/projects/${p.id}/members`);
    const setRole = async (email: string, role: string) => {
      await adminPage.getByRole('button', { name: `Change role of ${email}` }).click();
      const dialog = adminPage.getByRole('dialog', { name: `Role of ${email}` });
      await dialog.getByLabel('Role').selectOption(role);
      await dialog.getByRole('button', { name: 'Save the role' }).click();
      await adminPage.getByText(`${email} is now ${role}.`).waitFor();
    };
    const remove = async (email: string) => {
      await adminPage.getByRole('button', { name: `Remove ${email}` }).click();
      await adminPage
        .getByRole('dialog', { name: `Remove ${email}?` })
        .getByRole('button', { name: 'Remove the member' })
        .click();
    };
    await setRole(developerEmail, 'owner');
    await adminPage
      .getByRole('row', { name: new RegExp(developerEmail) })
      .getByRole('cell', { name: 'owner', exact: true })
      .waitFor();
    await shot(adminPage, 'members');

    // The only owner can be neither removed nor demoted.
    await remove(developerEmail);
    await alert(adminPage, 'LAST_OWNER').waitFor();
    await setRole(viewerEmail, 'owner');
    await remove(developerEmail);
    await adminPage.getByText(`${developerEmail} was removed from ${pName}.`).waitFor();
    const members = await call('GET', `/api/admin/projects/${p.id}/members`, { admin: true });
    expect(members.body.data.members).toMatchObject([{ email: viewerEmail, role: 'owner' }]);

    await adminPage
      .getByRole('navigation', { name: `Project ${pName}` })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await adminPage.getByLabel('Action').selectOption('member.removed');
    await adminPage
      .getByRole('row', { name: /member removed/ })
      .getByText(adminEmail)
      .waitFor();
    expect(await violations(adminPage)).toEqual([]);
  }, 60_000);

  it('forgot password: the mail links to the reset page; the new password signs in, and is changed on Your account', async () => {
    const email = uniqueAddress('console-reset');
    const created = await call('POST', '/api/admin/console/accounts', {
      admin: true,
      body: { email, password: PASSWORD },
    });
    expect(created.status).toBe(201);
    const page = await browserPage('/');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email of your console account').fill(email);
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText(`If ${email} has a console account, a mail`).waitFor();

    const mail = await mailpit.waitFor(email, { timeoutMs: 20_000 });
    const token = /#\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.Text)?.[1];
    expect(token).toBeDefined();
    await page.goto(`${origin}/console/#/reset-password?token=${token}`);
    await page.getByLabel('New password').fill(`${PASSWORD}-reset`);
    await page.getByLabel('Repeat the password').fill(`${PASSWORD}-reset`);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('Your password was changed').waitFor();
    expect(page.url()).not.toContain(token);
    await signInWithPassword(page, email, `${PASSWORD}-reset`);

    await page.getByRole('link', { name: email }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByLabel('Current password').fill(`${PASSWORD}-reset`);
    await page.getByLabel('New password').fill(`${PASSWORD}-changed`);
    await page.getByLabel('Repeat the password').fill(`${PASSWORD}-changed`);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByText('Password changed.').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Password').fill(`${PASSWORD}-reset`);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await alert(page, 'Wrong email or password.').waitFor();
    await page.getByLabel('Password').fill(`${PASSWORD}-changed`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await violations(page)).toEqual([]);
  }, 60_000);

  it('asks no host other than the gateway', () => {
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((u) => new URL(u).origin !== origin)).toEqual([]);
  });
});
