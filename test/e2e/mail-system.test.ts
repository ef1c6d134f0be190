import { randomBytes } from 'node:crypto';
import {
  connectNats,
  createCodeEvent,
  createLogger,
  JetStreamBus,
  parseMailEnvelopeKey,
  trustedProjectId,
} from '@baas/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { MAIL_API_URL, client, createProject } from '../support/e2e';
import { stackEnv, stackSecret, stackNatsAuth } from '../support/stack-env';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';

/** Issue 6: the platform's own mails (verification, password reset), sent from auth events. */
const mailpit = new Mailpit(MAIL_API_URL);
let nc: NatsConnection;
let bus: JetStreamBus;

beforeAll(async () => {
  const logger = createLogger('e2e', 'silent');
  nc = await connectNats(stackEnv().NATS_URL ?? 'nats://127.0.0.1:4222', 'e2e-mail', logger, stackNatsAuth());
  bus = await JetStreamBus.create(nc, logger);
});
afterAll(async () => nc?.drain());

/** Stands in for auth: the codes sealed with the stack's MAIL_ENVELOPE_KEY. */
const verificationEvent = (projectId: string, email: string, otp: string) =>
  createCodeEvent(
    parseMailEnvelopeKey(stackSecret('MAIL_ENVELOPE_KEY')),
    'auth.verification_requested',
    trustedProjectId(projectId),
    { userId: 'e2e-user', email, expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString() },
    { token: `e2e-token-${otp}`, otp },
  );

describe('system mails', () => {
  it('delivers a verification email with the code after an auth.verification_requested event, once per event', async () => {
    const p = await createProject();
    const to = uniqueAddress('e2e-verify');
    const event = verificationEvent(p.id, to, '31415926');
    await bus.publish(event);
    const m = await mailpit.waitFor(to, { timeoutMs: 15_000 });
    expect(m.Subject).toBe('Verify your email address');
    expect(m.HTML).toContain('31415926');
    expect(m.Text).toContain('31415926');
    expect(m.From.Address).toBe('no-reply@baas.local');
    expect(m.To).toEqual([{ Name: '', Address: to }]);
    // The same event again (a redelivery, or a re-publish past the dedupe window) sends nothing more.
    nc.publish('baas.events.auth.verification_requested', JSON.stringify(event));
    expect(await mailpit.countAfter(to, 1000)).toBe(1);
  });

  it('sends nothing for an event whose codes are in clear or sealed with another key (anyone on NATS could forge those)', async () => {
    const p = await createProject();
    const to = uniqueAddress('e2e-forged');
    const genuine = verificationEvent(p.id, to, '55554444');
    await bus.publish({
      ...genuine,
      id: `${genuine.id}-v1`,
      version: 1,
      data: { userId: 'x', email: to, code: 'chosen', otp: '55554444', expiresAt: genuine.data.expiresAt },
    } as unknown as typeof genuine);
    await bus.publish(
      createCodeEvent(
        parseMailEnvelopeKey(randomBytes(32).toString('hex')),
        'auth.verification_requested',
        trustedProjectId(p.id),
        { userId: 'x', email: to, expiresAt: genuine.data.expiresAt },
        { token: 'chosen', otp: '55554444' },
      ),
    );
    expect(await mailpit.countAfter(to, 2500)).toBe(0);
  });

  it("uses the project's override of verify-email", async () => {
    const call = client();
    const p = await createProject();
    const put = await call('PUT', `/api/admin/projects/${p.id}/mail/templates/verify-email`, {
      admin: true,
      body: { subject: 'Confirm your account', text: 'Code: {{code}} for {{email}}' },
    });
    expect(put.status).toBe(201);
    const to = uniqueAddress('e2e-verify-override');
    await bus.publish(verificationEvent(p.id, to, '27182818'));
    const m = await mailpit.waitFor(to, { timeoutMs: 15_000 });
    expect(m.Subject).toBe('Confirm your account');
    expect(m.Text.trim()).toBe(`Code: 27182818 for ${to}`);
  });

  it('sends the verification mail on signup and the reset mail on request-password-reset, without using the monthly quota', async () => {
    const call = client();
    const p = await createProject({ limits: { mailMonthly: 1 } });
    const to = uniqueAddress('e2e-signup');
    const signup = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email: to, password: 'correct horse battery staple' },
    });
    expect(signup.status).toBe(201);
    const verify = await mailpit.waitFor(to, { timeoutMs: 15_000 });
    expect(verify.Subject).toBe('Verify your email address');
    expect(verify.Text).toMatch(/code to verify your email address: \S+/);
    const reset = await call('POST', '/api/userAuth/request-password-reset', {
      key: p.publishableKey,
      body: { email: to },
    });
    expect(reset.status).toBe(200);
    const resetMail = await mailpit.waitFor(to, { count: 2, timeoutMs: 15_000 });
    expect(resetMail.Subject).toBe('Reset your password');
    // Both system mails left the project's monthly API quota untouched.
    const usage = await call('GET', `/api/admin/projects/${p.id}/mail/usage`, { admin: true });
    expect(usage.body).toMatchObject({ monthlyUsage: 0, monthlyLimit: 1 });
  });

  it('caps system mails to one recipient per hour (10): the 10th is sent, the 11th is not', async () => {
    const p = await createProject();
    const to = uniqueAddress('e2e-flood');
    for (let i = 0; i < 11; i++)
      await bus.publish(verificationEvent(p.id, to, `900000${i.toString().padStart(2, '0')}`));
    await mailpit.waitFor(to, { count: 10, timeoutMs: 20_000 });
    expect(await mailpit.countAfter(to, 1500)).toBe(10);
  });
});
