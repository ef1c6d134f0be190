import { randomBytes } from 'node:crypto';
import {
  connectNats,
  createConsoleInvitationEvent,
  createConsolePasswordResetEvent,
  createLogger,
  JetStreamBus,
  parseMailEnvelopeKey,
  subjectFor,
  trustedProjectId,
} from '@baas/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { BASE_URL, MAIL_API_URL, client, createProject } from '../support/e2e';
import { stackEnv, stackNatsAuth, stackSecret } from '../support/stack-env';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';

/**
 * Issue 16: the console's mails, sent by the running mail service from auth's console events
 * (sealed with the stack's MAIL_ENVELOPE_KEY; the test stands in for auth). The stack sets
 * CONSOLE_URL to the gateway's /console/.
 */
const mailpit = new Mailpit(MAIL_API_URL);
const CONSOLE_URL = `${BASE_URL}/console/`;
let nc: NatsConnection;
let bus: JetStreamBus;

beforeAll(async () => {
  const logger = createLogger('e2e', 'silent');
  nc = await connectNats(
    stackEnv().NATS_URL ?? 'nats://127.0.0.1:4222',
    'e2e-console-mail',
    logger,
    stackNatsAuth(),
  );
  bus = await JetStreamBus.create(nc, logger);
});
afterAll(async () => nc?.drain());

const key = () => parseMailEnvelopeKey(stackSecret('MAIL_ENVELOPE_KEY'));
const token = () => `e2e-${randomBytes(24).toString('base64url')}`;

describe('console mails', () => {
  it('an invitation links to the console’s accept-invitation route, once per event', async () => {
    const p = await createProject();
    const to = uniqueAddress('e2e-invite');
    const t = token();
    const event = createConsoleInvitationEvent(
      key(),
      trustedProjectId(p.id),
      { invitationId: randomBytes(12).toString('hex'), email: to, projectName: 'E2E shop', role: 'viewer' },
      { token: t },
    );
    await bus.publish(event);
    const m = await mailpit.waitFor(to, { timeoutMs: 15_000 });
    expect(m.Subject).toBe('You are invited to E2E shop');
    expect(m.Text).toContain(`${CONSOLE_URL}#/accept-invitation?token=${t}`);
    // delivered again (a re-publish past the dedupe window): nothing more is sent
    nc.publish(subjectFor(event.type), JSON.stringify(event));
    expect(await mailpit.countAfter(to, 1000)).toBe(1);
    const log = await client()('GET', `/api/admin/projects/${p.id}/mail/messages`, { admin: true });
    expect(log.body.data.items).toEqual([
      expect.objectContaining({ to, templateKey: 'console-invitation', system: true, status: 'sent' }),
    ]);
  });

  it('a password reset links to the reset-password route and is in the platform’s log', async () => {
    const to = uniqueAddress('e2e-console-reset');
    const t = token();
    await bus.publish(
      createConsolePasswordResetEvent(
        key(),
        { accountId: randomBytes(12).toString('hex'), email: to },
        { token: t },
      ),
    );
    const m = await mailpit.waitFor(to, { timeoutMs: 15_000 });
    expect(m.Subject).toBe('Reset your console password');
    expect(m.Text).toContain(`${CONSOLE_URL}#/reset-password?token=${t}`);
    const log = await client()('GET', '/api/admin/mail/messages?limit=100', { admin: true });
    expect(log.status).toBe(200);
    expect(log.body.data.items).toContainEqual(
      expect.objectContaining({ to, templateKey: 'console-password-reset', status: 'sent' }),
    );
  });

  it('sends nothing for a token sealed with another key (anyone on NATS could forge that)', async () => {
    const to = uniqueAddress('e2e-console-forged');
    await bus.publish(
      createConsolePasswordResetEvent(
        parseMailEnvelopeKey(randomBytes(32).toString('hex')),
        { accountId: 'x', email: to },
        { token: 'chosen' },
      ),
    );
    expect(await mailpit.countAfter(to, 2500)).toBe(0);
  });
});
