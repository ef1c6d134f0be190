import { createEvent } from '@baas/common';
import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { call, newProjectId, sendAs, startHarness, type Harness } from '../support/harness';
import { uniqueAddress } from '../support/mailpit';
import { projectDeletedHandler, systemMailHandler } from '../../src/consumers';

let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness({ linkBaseUrl: 'https://app.example.com' });
});
afterAll(async () => h?.close());

const verification = (projectId: ReturnType<typeof newProjectId>, email: string, code = '123456') =>
  createEvent('auth.verification_requested', projectId, {
    userId: 'u1',
    email,
    code,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
  });

describe('system mails from auth events', () => {
  it('sends the verification code with the built-in template, once per event id', async () => {
    const p = newProjectId();
    const to = uniqueAddress('verify');
    const handle = systemMailHandler(h.deps, h.processed);
    const event = verification(p, to, '482913');
    await handle(event);
    await handle(event); // redelivery
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Verify your email address');
    expect(m.HTML).toContain('482913');
    expect(m.Text).toContain('482913');
    // mustache escapes `/` and `=` as entities inside the attribute; a mail client decodes them.
    expect(m.HTML).toContain(
      'href="https:&#x2F;&#x2F;app.example.com&#x2F;verify-email?token&#x3D;482913&amp;email&#x3D;',
    );
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
      createEvent('auth.password_reset_requested', p, {
        userId: 'u',
        email: to,
        code: '777111',
        expiresAt: new Date().toISOString(),
      }),
    );
    const m = await h.mailpit.waitFor(to);
    expect(m.Subject).toBe('Custom reset');
    expect(m.Text).toContain('Your code: 777111');
    // The monthly API limit of 1 is still fully available.
    expect((await sendAs(h, p, { to: uniqueAddress(), subject: 's', text: 't' }, 1)).status).toBe(200);
  });

  it('caps system mails per recipient per hour: at the cap it sends, past it it drops', async () => {
    const p = newProjectId();
    const to = uniqueAddress('flood');
    h.deps.limits = { ...h.deps.limits, systemRecipientHourly: 2 };
    try {
      const handle = systemMailHandler(h.deps, h.processed);
      for (let i = 0; i < 3; i++) await handle(verification(p, to, `00000${i}`));
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
