import { randomBytes } from 'node:crypto';
import { createEvent, parseMailEnvelopeKey, SealedCodesRejected, type EventEnvelope } from '@baas/common';
import { requireInfra, storeNeed } from '../../../../test/support/infra';
import {
  call,
  codeEvent,
  ENVELOPE_KEY,
  newProjectId,
  sendAs,
  startHarness,
  type Harness,
} from '../support/harness';
import { uniqueAddress } from '../support/mailpit';
import { projectDeletedHandler, systemMailHandler } from '../../src/consumers';

let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness({ linkBaseUrl: 'https://app.example.com' });
});
afterAll(async () => h?.close());

const verification = (
  projectId: ReturnType<typeof newProjectId>,
  email: string,
  otp = '12345678',
  token?: string,
) => codeEvent('auth.verification_requested', projectId, { email }, { otp, ...(token ? { token } : {}) });

describe('system mails from auth events', () => {
  it('sends the 8-digit code and the link with the built-in template, once per event id', async () => {
    const p = newProjectId();
    const to = uniqueAddress('verify');
    const handle = systemMailHandler(h.deps, h.processed);
    const event = verification(p, to, '48291375', 'link-token-482913');
    await handle(event);
    await handle(event); // redelivery
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Verify your email address');
    expect(m.HTML).toContain('48291375');
    expect(m.Text).toContain('Use this code to verify your email address: 48291375');
    // mustache escapes `/` and `=` as entities inside the attribute; a mail client decodes them.
    expect(m.HTML).toContain(
      'href="https:&#x2F;&#x2F;app.example.com&#x2F;verify-email?token&#x3D;link-token-482913&amp;email&#x3D;',
    );
    expect(m.Text).toContain('Or open https://app.example.com/verify-email?token=link-token-482913&email=');
    expect(await h.mailpit.countAfter(to, 400)).toBe(1);
    const [stored] = await h.stored.messages(p);
    expect(stored).toMatchObject({
      system: true,
      templateKey: 'verify-email',
      status: 'sent',
      causedBy: event.id,
    });
  });

  it('uses the project override of password-reset, and does not count against the monthly limit', async () => {
    const p = newProjectId();
    const put = await call(
      h,
      'PUT',
      `/api/admin/projects/${p}/mail/templates/password-reset`,
      { subject: 'Custom reset', text: 'Your code: {{code}}' },
      { projectId: p, admin: true },
    );
    expect(put.status).toBe(201);
    const to = uniqueAddress('reset');
    await systemMailHandler(
      h.deps,
      h.processed,
    )(
      codeEvent(
        'auth.password_reset_requested',
        p,
        { userId: 'u', email: to, expiresAt: new Date().toISOString() },
        { otp: '77711100' },
      ),
    );
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Custom reset');
    expect(m.Text).toContain('Your code: 77711100');
    // The monthly API limit of 1 is still fully available.
    expect((await sendAs(h, p, { to: uniqueAddress(), subject: 's', text: 't' }, 1)).status).toBe(200);
  });

  it('caps system mails per recipient per hour: at the cap it sends, past it it drops', async () => {
    const p = newProjectId();
    const to = uniqueAddress('flood');
    h.deps.limits = { ...h.deps.limits, systemRecipientHourly: 2 };
    try {
      const handle = systemMailHandler(h.deps, h.processed);
      for (let i = 0; i < 3; i++) await handle(verification(p, to, `0000000${i}`));
      expect(await h.mailpit.countAfter(to, 500)).toBe(2);
    } finally {
      h.deps.limits = { ...h.deps.limits, systemRecipientHourly: 10 };
    }
  });

  it('caps system mails per project per day', async () => {
    const p = newProjectId();
    h.deps.limits = { ...h.deps.limits, systemDaily: 1 };
    try {
      const handle = systemMailHandler(h.deps, h.processed);
      const a = uniqueAddress('day-a');
      const b = uniqueAddress('day-b');
      await handle(verification(p, a));
      await handle(verification(p, b));
      await h.mailpit.waitFor(a);
      expect(await h.mailpit.countAfter(b, 400)).toBe(0);
    } finally {
      h.deps.limits = { ...h.deps.limits, systemDaily: 500 };
    }
  });

  it('drops an event with an undeliverable address instead of retrying forever', async () => {
    await expect(
      systemMailHandler(h.deps, h.processed)(verification(newProjectId(), 'x\r\nBcc: y@example.com')),
    ).resolves.toBeUndefined();
  });
});

describe('sealed codes', () => {
  const refused = async (event: EventEnvelope, to: string) => {
    await expect(systemMailHandler(h.deps, h.processed)(event)).rejects.toBeInstanceOf(SealedCodesRejected);
    expect(await h.mailpit.countAfter(to, 300)).toBe(0);
  };

  it('refuses, and sends nothing for, a version 1 event with the codes in clear', async () => {
    const to = uniqueAddress('v1');
    const v1 = {
      ...verification(newProjectId(), to),
      version: 1,
      data: {
        userId: 'u1',
        email: to,
        code: 'chosen-token',
        otp: '11111111',
        expiresAt: '2030-01-01T00:00:00Z',
      },
    } as unknown as EventEnvelope;
    await refused(v1, to);
  });

  it('refuses codes sealed with a key it does not hold', async () => {
    const to = uniqueAddress('other-key');
    const stranger = parseMailEnvelopeKey(randomBytes(32).toString('hex'));
    await refused(
      codeEvent('auth.verification_requested', newProjectId(), { email: to }, { otp: '1' }, stranger),
      to,
    );
  });

  it('refuses a sealed box whose recipient was changed, or that was moved into another event', async () => {
    const victim = uniqueAddress('victim');
    const attacker = uniqueAddress('attacker');
    const original = verification(newProjectId(), victim);
    await refused({ ...original, data: { ...original.data, email: attacker } }, attacker);
    const other = verification(newProjectId(), attacker);
    await refused({ ...other, data: { ...other.data, sealed: original.data.sealed } }, attacker);
    // the untouched event still works
    await systemMailHandler(h.deps, h.processed)(original);
    await h.mailpit.waitFor(victim);
  });

  it('opens codes sealed with the previous key while a rotation keeps it', async () => {
    const to = uniqueAddress('rotation');
    const previous = parseMailEnvelopeKey(randomBytes(32).toString('base64'));
    const keys = h.deps.envelopeKeys;
    h.deps.envelopeKeys = [ENVELOPE_KEY, previous];
    try {
      await systemMailHandler(
        h.deps,
        h.processed,
      )(
        codeEvent(
          'auth.verification_requested',
          newProjectId(),
          { email: to },
          { otp: '24681357' },
          previous,
        ),
      );
      expect((await h.mailpit.waitFor(to)).Text).toContain('24681357');
    } finally {
      h.deps.envelopeKeys = keys;
    }
  });

  it('dead-letters a refused event through the bus (its codes stay sealed in the dead letter)', async () => {
    const to = uniqueAddress('dlq');
    const durable = `it-mail-dlq-${randomBytes(4).toString('hex')}`;
    const stranger = parseMailEnvelopeKey(randomBytes(32).toString('hex'));
    const event = codeEvent(
      'auth.verification_requested',
      newProjectId(),
      { email: to },
      { otp: '99887766', token: 'tok-dlq-secret' },
      stranger,
    );
    const dead: { data: string; reason: string | undefined }[] = [];
    const sub = h.nc.subscribe(`baas.dlq.${durable}`);
    void (async () => {
      for await (const m of sub) dead.push({ data: m.string(), reason: m.headers?.get('baas-dlq-reason') });
    })();
    const handle = await h.bus.consume({
      durable,
      types: ['auth.verification_requested'],
      maxDeliver: 1,
      handler: async (e) => {
        if (e.id === event.id) await systemMailHandler(h.deps, h.processed)(e);
      },
    });
    try {
      await h.bus.publish(event);
      const deadline = Date.now() + 5000;
      while (dead.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(dead).toHaveLength(1);
      expect(dead[0]!.reason).toMatch(/unknown key/);
      expect(JSON.parse(dead[0]!.data)).toMatchObject({ id: event.id });
      expect(dead[0]!.data).not.toContain('99887766');
      expect(dead[0]!.data).not.toContain('tok-dlq-secret');
      expect(await h.mailpit.countAfter(to, 300)).toBe(0);
    } finally {
      sub.unsubscribe();
      await handle.stop();
      await h.bus.jsm.consumers.delete('BAAS_EVENTS', durable).catch(() => undefined);
    }
  });
});

describe('system mails without MAIL_LINK_BASE_URL', () => {
  it('carry the 8-digit code and the link token itself (the { token } form)', async () => {
    const to = uniqueAddress('nolink');
    const { linkBaseUrl } = h.deps;
    delete h.deps.linkBaseUrl;
    try {
      await systemMailHandler(
        h.deps,
        h.processed,
      )(
        codeEvent(
          'auth.password_reset_requested',
          newProjectId(),
          { email: to },
          { otp: '13572468', token: 'tok-nolink' },
        ),
      );
      const m = await h.mailpit.waitFor(to);
      expect(m.Subject).toBe('Reset your password');
      expect(m.Text).toContain('Use this code to reset your password: 13572468');
      expect(m.Text).toContain('If the app asks for a token instead, use: tok-nolink');
      expect(m.HTML).toContain('<code>tok-nolink</code>');
    } finally {
      if (linkBaseUrl !== undefined) h.deps.linkBaseUrl = linkBaseUrl;
    }
  });
});

describe('project.deleted', () => {
  it("removes the project's templates, usage and messages, and nothing of other projects", async () => {
    const p = newProjectId();
    const keep = newProjectId();
    for (const id of [p, keep]) {
      await call(
        h,
        'PUT',
        `/api/admin/projects/${id}/mail/templates/t`,
        { subject: 's', text: 't' },
        { projectId: id, admin: true },
      );
      await sendAs(h, id, { to: uniqueAddress(), subject: 's', text: 't' });
    }
    await projectDeletedHandler(h.deps, h.processed)(createEvent('project.deleted', p, {}));
    await h.relay.flush();
    expect(await h.stored.templateCount(p)).toBe(0);
    expect(await h.stored.usage(p)).toBe(0);
    expect(await h.stored.messages(p)).toEqual([]);
    expect(await h.stored.templateCount(keep)).toBe(1);
    expect(await h.stored.usage(keep)).toBe(1);
    expect(await h.stored.messages(keep)).toHaveLength(1);
  });
});
