import { csrfTokenFor } from '@baas/common';
import type { Mailpit } from '../../services/mail/test/support/mailpit';
import { BASE_URL, randomIp, send } from './e2e';

/**
 * Console sessions as the e2e tests hold them: the headers a signed-in browser sends (the
 * `baas_console` cookie, and the CSRF token a change needs), from a sign-in or an accepted
 * invitation; and the token an invitation mail carries.
 */
export type ConsoleSession = Record<string, string>;

/** The session of an answer that set the console cookie; throws with the answer when none. */
async function sessionOf(answer: Response, what: string): Promise<ConsoleSession> {
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const token = cookie.slice(cookie.indexOf('=') + 1);
  if (answer.status !== 200 || !token) throw new Error(`${what}: ${answer.status} ${await answer.text()}`);
  return { cookie, 'x-csrf-token': csrfTokenFor(token) };
}

async function post(path: string, body: unknown): Promise<Response> {
  return send(`${BASE_URL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ip: randomIp(),
    body: JSON.stringify(body),
  });
}

/** Signs a console account in with its password. */
export async function consoleSignIn(email: string, password: string): Promise<ConsoleSession> {
  return sessionOf(await post('/api/console/login', { email, password }), 'console sign-in');
}

/** Accepts an invitation (creating the account with `password`), which signs it in. */
export async function acceptInvitation(token: string, password: string): Promise<ConsoleSession> {
  return sessionOf(
    await post('/api/console/invitations/accept', { token, password }),
    'accept the invitation',
  );
}

/** The token of the newest invitation mailed to `email`. */
export async function invitationToken(mailpit: Mailpit, email: string): Promise<string> {
  const mail = await mailpit.waitFor(email, { timeoutMs: 20_000 });
  const token = /accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.Text)?.[1];
  if (!token) throw new Error(`no invitation link in the mail:\n${mail.Text}`);
  return token;
}
