import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { MAIL_API_URL, createProject } from '../support/e2e';
import { stackEnv, stackNatsAuth } from '../support/stack-env';
import { Mailpit, uniqueAddress, type MailpitMessage } from '../../services/mail/test/support/mailpit';
import { authClient } from './auth-support';

/**
 * Issue 12 item 1, end to end: the verification and reset mails carry the 8-digit code (and the
 * link token), the documented `{ email, otp }` forms work with the code read from the mail, and
 * neither the code nor the token is in any stream (events, dead letters) or in auth's outbox.
 */
const env = stackEnv();
const mailpit = new Mailpit(MAIL_API_URL);
const call = authClient();
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = (await connect({
    servers: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    ...stackNatsAuth(env),
  })) as NatsConnection;
  jsm = await jetstreamManager(nc);
});
afterAll(async () => nc?.drain());

/** Every stream and its last sequence now: what a later scan starts after. */
async function streamMarks(): Promise<Map<string, number>> {
  const marks = new Map<string, number>();
  for await (const s of jsm.streams.list()) marks.set(s.config.name, s.state.last_seq);
  return marks;
}

/** Subjects, headers and payloads of every message stored in any stream since the marks. */
async function storedSince(marks: Map<string, number>): Promise<{ subject: string; text: string }[]> {
  const out: { subject: string; text: string }[] = [];
  for await (const s of jsm.streams.list()) {
    const from = (marks.get(s.config.name) ?? 0) + 1;
    for (let seq = Math.max(from, s.state.first_seq); seq <= s.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(s.config.name, { seq }).catch(() => null);
      if (!m) continue; // deleted or aged out
      const headers = m.header ? [...m.header.keys()].map((k) => `${k}: ${m.header.get(k)}`).join('\n') : '';
      out.push({ subject: m.subject, text: `${m.subject}\n${headers}\n${m.string()}` });
    }
  }
  return out;
}

/** Everything auth still has in its outbox, as stored (PostgreSQL table or MongoDB `_outbox`). */
async function authOutboxRaw(): Promise<string> {
  const url = env.AUTH_DATABASE_URL;
  if (!url) throw new Error('AUTH_DATABASE_URL is not in .stack/env: run `npm run up` first');
  if (url.startsWith('postgres')) {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query<{ raw: string }>('SELECT event::text AS raw FROM outbox')).rows
        .map((r) => r.raw)
        .join('\n');
    } finally {
      await c.end();
    }
  }
  const c = new MongoClient(url);
  await c.connect();
  try {
    const docs = await c
      .db()
      .collection('users')
      .find({ _outbox: { $exists: true } }, { projection: { _outbox: 1 } })
      .toArray();
    return JSON.stringify(docs);
  } finally {
    await c.close();
  }
}

/** The 8-digit code and the link token of a system mail, as its reader sees them. */
function codesIn(m: MailpitMessage, purpose: RegExp): { otp: string; token: string } {
  const otp = new RegExp(`${purpose.source}: ([0-9]{8})\\b`).exec(m.Text)?.[1];
  const token =
    /[?&]token=([A-Za-z0-9_-]+)/.exec(m.Text)?.[1] ??
    /asks for a token instead, use: ([A-Za-z0-9_-]+)/.exec(m.Text)?.[1];
  if (!otp || !token) throw new Error(`no code or token in the mail:\n${m.Text}`);
  expect(m.HTML).toContain(otp);
  expect(m.HTML).toContain(token);
  return { otp, token };
}

describe('verification and reset codes reach the user by mail only', () => {
  it('the mails carry the code and the token; { email, otp } verifies and resets; no stream or outbox holds either', async () => {
    const marks = await streamMarks();
    const p = await createProject();
    const email = uniqueAddress('e2e-codes');
    const signup = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      headers: { 'x-refresh-token-mode': 'header' },
      body: { email, password: 'password-123' },
    });
    expect(signup.status).toBe(201);

    const verifyMail = await mailpit.waitFor(email, { timeoutMs: 15_000 });
    expect(verifyMail.Subject).toBe('Verify your email address');
    const verify = codesIn(verifyMail, /code to verify your email address/);
    const verified = await call('POST', '/api/userAuth/verify-email', {
      key: p.publishableKey,
      body: { email, otp: verify.otp },
    });
    expect(verified.status).toBe(200);
    const me = await call('GET', '/api/userAuth/me', {
      key: p.publishableKey,
      token: signup.body.accessToken as string,
    });
    expect(me.body.user.emailVerified).toBe(true);

    const requested = await call('POST', '/api/userAuth/request-password-reset', {
      key: p.publishableKey,
      body: { email },
    });
    expect(requested.status).toBe(200);
    const resetMail = await mailpit.waitFor(email, { count: 2, timeoutMs: 15_000 });
    expect(resetMail.Subject).toBe('Reset your password');
    const reset = codesIn(resetMail, /code to reset your password/);
    const done = await call('POST', '/api/userAuth/reset-password', {
      key: p.publishableKey,
      body: { email, otp: reset.otp, newPassword: 'new-password-456' },
    });
    expect(done.status).toBe(200);
    const login = await call('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email, password: 'new-password-456' },
    });
    expect(login.status).toBe(200);

    const secrets = [verify.otp, verify.token, reset.otp, reset.token];
    const stored = await storedSince(marks);
    // Not vacuous: both events of this user are among what was scanned.
    const mine = stored.filter((m) => m.text.includes(email));
    expect(mine.map((m) => m.subject)).toEqual(
      expect.arrayContaining([
        'baas.events.auth.verification_requested',
        'baas.events.auth.password_reset_requested',
      ]),
    );
    for (const m of stored) for (const s of secrets) expect(m.text).not.toContain(s);
    const outbox = await authOutboxRaw();
    for (const s of secrets) expect(outbox).not.toContain(s);
  });
});
