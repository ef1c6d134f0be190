import { randomBytes } from 'node:crypto';
import { parseMailEnvelopeKey, SealedCodesRejected, subjectFor, type EventEnvelope } from '@baas/common';
import { requireInfra, storeNeed } from '../../../../test/support/infra';
import {
  call,
  CONSOLE_URL,
  consoleResetEvent,
  invitationEvent,
  newProjectId,
  sendAs,
  startHarness,
  waitUntil,
  type Harness,
} from '../support/harness';
import { uniqueAddress } from '../support/mailpit';
import { consoleMailHandler } from '../../src/consumers';

/**
 * Issue 16: the console's mails. auth's console.invitation_requested and
 * console.password_reset_requested carry the link token sealed for mail; mail sends them with the
 * global console-invitation / console-password-reset templates, linking into CONSOLE_URL, once per
 * event however often it arrives, counted against no limit (runs on TEST_STORE; Mailpit is the
 * SMTP server).
 */
let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness();
});
afterAll(async () => h?.close());

const handle = (e: EventEnvelope) => consoleMailHandler(h.deps, h.processed)(e);
/** mustache escapes `/` and `=` inside the HTML part; a mail client decodes them. */
const htmlEscaped = (s: string) => s.replace(/\//g, '&#x2F;').replace(/=/g, '&#x3D;');

describe('console invitation mails', () => {
  it('link to the console’s accept-invitation route with the token, once per event id', async () => {
    const p = newProjectId();
    const to = uniqueAddress('invite');
    const token = `inv-${randomBytes(24).toString('base64url')}`;
    const event = invitationEvent(p, { email: to, projectName: 'Shop backend', role: 'owner' }, token);
    await handle(event);
    await handle(event); // a redelivery
    const m = await h.mailpit.waitFor(to);
    const link = `${CONSOLE_URL}#/accept-invitation?token=${token}`;
    expect(m.Subject).toBe('You are invited to Shop backend');
    expect(m.Text).toContain(`Accept the invitation: ${link}`);
    expect(m.Text).toContain('as owner');
    expect(m.HTML).toContain(`href="${htmlEscaped(link)}"`);
    expect(m.HTML).toContain('<strong>Shop backend</strong>');
    expect(await h.mailpit.countAfter(to, 400)).toBe(1);

    // in the project's sent-mail log, as a platform mail caused by the event
    const stored = await h.stored.messages(p);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      projectId: p,
      to,
      system: true,
      templateKey: 'console-invitation',
      status: 'sent',
      causedBy: event.id,
    });
    const log = await call(h, 'GET', `/api/admin/projects/${p}/mail/messages`, undefined, {
      projectId: p,
      admin: true,
    });
    expect(log.body.data.items).toEqual([
      expect.objectContaining({ to, templateKey: 'console-invitation', system: true, status: 'sent' }),
    ]);
    // counted against nothing: no usage at all, and a monthly limit of 1 is still free
    expect(await h.stored.usageBuckets(p)).toEqual([]);
    expect((await sendAs(h, p, { to: uniqueAddress(), subject: 's', text: 't' }, 1)).status).toBe(200);
  });

  it('sends once when the bus delivers the event a second time', async () => {
    const p = newProjectId();
    const to = uniqueAddress('invite-bus');
    const event = invitationEvent(p, { email: to });
    const durable = `it-mail-console-${randomBytes(4).toString('hex')}`;
    let handled = 0;
    const consumer = await h.bus.consume({
      durable,
      types: ['console.invitation_requested', 'console.password_reset_requested'],
      handler: async (e, delivery) => {
        if (e.id !== event.id) return;
        await consoleMailHandler(h.deps, h.processed)(e, delivery);
        handled++;
      },
    });
    try {
      await h.bus.publish(event);
      await h.mailpit.waitFor(to);
      await waitUntil(() => handled === 1);
      // the same event stored again under another message id: it is delivered again
      await h.bus.js.publish(subjectFor(event.type), JSON.stringify(event), { msgID: `${event.id}-again` });
      await waitUntil(() => handled === 2);
      expect(await h.mailpit.countAfter(to, 500)).toBe(1);
      expect(await h.stored.messages(p)).toHaveLength(1);
    } finally {
      await consumer.stop();
      await h.bus.jsm.consumers.delete('BAAS_EVENTS', durable).catch(() => undefined);
    }
  });

  it('use the operator’s global template, never a project’s override of it', async () => {
    const p = newProjectId();
    const own = await call(
      h,
      'PUT',
      `/api/admin/projects/${p}/mail/templates/console-invitation`,
      { subject: 'Phishing {{projectName}}', text: 'Go to https://evil.example.com' },
      { projectId: p, admin: true },
    );
    expect(own.status).toBe(201);
    const global = await call(
      h,
      'PUT',
      '/api/admin/mail/templates/console-invitation',
      {
        subject: 'Join {{projectName}} ({{role}})',
        mjml: '<mjml><mj-body><mj-section><mj-column><mj-button href="{{link}}">Join</mj-button></mj-column></mj-section></mj-body></mjml>',
        text: 'Join here: {{link}}',
      },
      { admin: true },
    );
    expect([200, 201]).toContain(global.status);
    try {
      const to = uniqueAddress('invite-global');
      const event = invitationEvent(p, { email: to, projectName: 'Docs', role: 'viewer' }, 'tok-global');
      await handle(event);
      const m = await h.mailpit.waitFor(to);
      expect(m.Subject).toBe('Join Docs (viewer)');
      expect(m.Text).toBe(`Join here: ${CONSOLE_URL}#/accept-invitation?token=tok-global`);
      expect(m.HTML).toContain(htmlEscaped(`${CONSOLE_URL}#/accept-invitation?token=tok-global`));
    } finally {
      await call(h, 'DELETE', '/api/admin/mail/templates/console-invitation', undefined, { admin: true });
    }
  });
});

describe('console password-reset mails', () => {
  it('link to the console’s reset-password route, once per event, logged as the platform’s', async () => {
    const to = uniqueAddress('console-reset');
    const token = `rst-${randomBytes(24).toString('base64url')}`;
    const event = consoleResetEvent(to, token);
    expect(event.projectId).toBeNull();
    await handle(event);
    await handle(event);
    const m = await h.mailpit.waitFor(to);
    const link = `${CONSOLE_URL}#/reset-password?token=${token}`;
    expect(m.Subject).toBe('Reset your console password');
    expect(m.Text).toContain(`Choose a new password: ${link}`);
    expect(m.Text).toContain(to);
    expect(m.HTML).toContain(`href="${htmlEscaped(link)}"`);
    expect(await h.mailpit.countAfter(to, 400)).toBe(1);

    const mine = (await h.stored.messages(null)).filter((r) => r.to === to);
    expect(mine).toEqual([
      expect.objectContaining({
        projectId: null,
        system: true,
        templateKey: 'console-password-reset',
        status: 'sent',
        causedBy: event.id,
      }),
    ]);
    // the platform's log on the admin API; no mail.sent event (that event is a project's)
    const log = await call(h, 'GET', '/api/admin/mail/messages?limit=100', undefined, { admin: true });
    expect(log.status).toBe(200);
    expect(log.body.data.items).toContainEqual(
      expect.objectContaining({ id: mine[0]!.id, to, templateKey: 'console-password-reset', status: 'sent' }),
    );
    await h.relay.flush();
    expect(h.published.some((e) => (e.data as { messageId?: string }).messageId === mine[0]!.id)).toBe(false);
  });

  it('the platform’s log answers only admin requests', async () => {
    const p = newProjectId();
    const r = await call(h, 'GET', '/api/admin/mail/messages', undefined, {
      projectId: p,
      keyType: 'secret',
    });
    expect([r.status, r.body.code]).toEqual([401, 'ADMIN_TOKEN_REQUIRED']);
  });
});

describe('sealed console tokens', () => {
  const refused = async (event: EventEnvelope, to: string) => {
    await expect(handle(event)).rejects.toBeInstanceOf(SealedCodesRejected);
    expect(await h.mailpit.countAfter(to, 300)).toBe(0);
  };

  it('refuses a token sealed with a key it does not hold', async () => {
    const to = uniqueAddress('console-stranger');
    const stranger = parseMailEnvelopeKey(randomBytes(32).toString('hex'));
    await refused(consoleResetEvent(to, 'tok', stranger), to);
  });

  it('refuses an invitation whose recipient or project was changed, or whose box was moved', async () => {
    const victim = uniqueAddress('console-victim');
    const attacker = uniqueAddress('console-attacker');
    const original = invitationEvent(newProjectId(), { email: victim });
    await refused({ ...original, data: { ...original.data, email: attacker } }, attacker);
    await refused(
      { ...original, projectId: newProjectId(), data: { ...original.data, email: attacker } },
      attacker,
    );
    const other = consoleResetEvent(attacker);
    await refused({ ...other, data: { ...other.data, sealed: original.data.sealed } }, attacker);
    await handle(original);
    await h.mailpit.waitFor(victim);
  });
});
