/** Type test of the client surface: options, auth, storage, mail, errors. */
import {
  BaasError,
  createClient,
  localStorageAdapter,
  memoryStorage,
  type BaasUser,
  type MailSendResult,
  type UploadResult,
} from '../../src/index.js';

interface Profile extends BaasUser {
  username: string;
}

export async function correctUses(): Promise<void> {
  const browser = createClient({
    baseUrl: 'https://api.example.com',
    apiKey: 'pk_live_x',
    storage: localStorageAdapter(),
    tokenMode: 'cookie',
  });
  const server = createClient({
    baseUrl: 'https://api.example.com',
    apiKey: 'sk_live_x',
    fetch: (url, init) => fetch(url, init),
    storage: memoryStorage(),
    retry: { retries: 3, baseDelayMs: 100 },
  });
  const { user, session } = await browser.auth.signup({
    email: 'a@b.c',
    password: 'password-123',
    username: 'a',
  });
  const email: string = user.email;
  const token: string | undefined = session?.accessToken;
  const me = await browser.auth.me<Profile>({ signal: AbortSignal.timeout(5000) });
  const username: string = me.username;
  await browser.auth.verifyEmail({ email: 'a@b.c', otp: '12345678' });
  await browser.auth.verifyEmail({ token: 'tok' });
  await browser.auth.resetPassword({ token: 't', newPassword: 'password-456' });
  const off = browser.auth.onAuthStateChange((event, s) => void [event, s]);
  off();
  const up: UploadResult = await browser.storage.upload(new Blob(['x']), {
    onProgress: (p) => void p.loaded,
  });
  await browser.storage.delete(up.path);
  const sent: MailSendResult = await server.mail.send({ to: 'a@b.c', subject: 'Hi', text: 'Hello' });
  await server.mail.send({ to: 'a@b.c', templateName: 'welcome', variables: { name: 'A' } });
  try {
    await browser.auth.login({ email: 'a@b.c', password: 'x' });
  } catch (e) {
    if (e instanceof BaasError) {
      const parts: [number, string, string | undefined] = [e.status, e.code, e.requestId];
      void parts;
    }
  }
  void [email, token, username, sent];
}

export async function misuses(): Promise<void> {
  // @ts-expect-error apiKey is required
  createClient({ baseUrl: 'http://x' });
  // @ts-expect-error unknown token mode
  createClient({ baseUrl: 'http://x', apiKey: 'pk_live_x', tokenMode: 'query' });
  const c = createClient({ baseUrl: 'http://x', apiKey: 'sk_live_x' });
  // @ts-expect-error signup needs a password
  await c.auth.signup({ email: 'a@b.c' });
  // @ts-expect-error verify-email takes a token or an email with its otp
  await c.auth.verifyEmail({ email: 'a@b.c' });
  // @ts-expect-error direct mode and template mode are exclusive
  await c.mail.send({ to: 'a@b.c', subject: 's', text: 't', templateName: 'welcome' });
  // @ts-expect-error templateId and templateName are exclusive
  await c.mail.send({ to: 'a@b.c', templateId: 'x', templateName: 'y' });
  // @ts-expect-error to is one address
  await c.mail.send({ to: ['a@b.c'], subject: 's', text: 't' });
  // @ts-expect-error upload takes a Blob (or a React Native file)
  await c.storage.upload('hello');
}
