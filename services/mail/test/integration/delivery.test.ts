import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { newProjectId, sendAs, startHarness, waitUntil, type Harness } from '../support/harness';
import { uniqueAddress } from '../support/mailpit';
import { SmtpMailer } from '../../src/adapters/smtp-mailer';
import { DeliveryError, type Mailer, type OutgoingMail } from '../../src/ports';

/** A mailer that fails as scripted, then delegates to the real one. */
class ScriptedMailer implements Mailer {
  readonly provider = 'smtp';
  calls = 0;
  constructor(
    private readonly failures: DeliveryError[],
    private readonly real: Mailer,
  ) {}
  async send(mail: OutgoingMail): Promise<void> {
    const f = this.failures[this.calls++];
    if (f) throw f;
    await this.real.send(mail);
  }
}

let h: Harness;
beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'smtp');
  h = await startHarness();
});
afterAll(async () => h?.close());

const month = () => `month:${new Date().toISOString().slice(0, 7)}`;

describe('SMTP failures', () => {
  it('retries transient failures with backoff and then delivers once', async () => {
    const scripted = new ScriptedMailer(
      [new DeliveryError('421 try later', false), new DeliveryError('ECONNRESET', false)],
      h.mailer,
    );
    h.deps.mailer = scripted;
    try {
      const to = uniqueAddress('retry');
      const p = newProjectId();
      const r = await sendAs(h, p, { to, subject: 'retried', text: 'x' });
      expect(r.status).toBe(200);
      expect(scripted.calls).toBe(3);
      expect(await h.mailpit.countAfter(to, 400)).toBe(1);
      const [stored] = await h.stored.messages(p);
      expect(stored).toMatchObject({ id: r.body.data.id, status: 'sent', attempts: 3 });
    } finally {
      h.deps.mailer = h.mailer;
    }
  });

  it('answers 503 with Retry-After when the server stays unreachable, releases the usage and records mail.failed', async () => {
    const p = newProjectId();
    const unreachable = new SmtpMailer({
      host: '127.0.0.1',
      port: 1,
      secure: false,
      maxConnections: 1,
      from: 'no-reply@baas.local',
    });
    h.deps.mailer = unreachable;
    try {
      const r = await sendAs(h, p, { to: uniqueAddress('down'), subject: 's', text: 't' });
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('MAIL_DELIVERY_FAILED');
      expect(r.headers.get('retry-after')).toBe('5');
      expect(await h.stored.usage(p, month())).toBe(0);
      const [stored] = await h.stored.messages(p);
      expect(stored).toMatchObject({ status: 'failed', attempts: 3 });
      const id = stored!.id;
      await waitUntil(() =>
        h.published.some(
          (e) => e.type === 'mail.failed' && (e.data as { messageId: string }).messageId === id,
        ),
      );
      expect(
        h.published.find((e) => (e.data as { messageId?: string }).messageId === id)?.data,
      ).toMatchObject({ permanent: false });
    } finally {
      unreachable.close();
      h.deps.mailer = h.mailer;
    }
  });

  it('does not retry a permanent refusal; a refused recipient is 400, other refusals 502', async () => {
    const p = newProjectId();
    const rcpt = new ScriptedMailer([new DeliveryError('550 no such user', true, true)], h.mailer);
    h.deps.mailer = rcpt;
    const r = await sendAs(h, p, { to: uniqueAddress('refused'), subject: 's', text: 't' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('RECIPIENT_REJECTED');
    expect(rcpt.calls).toBe(1);
    const data = new ScriptedMailer([new DeliveryError('554 rejected', true)], h.mailer);
    h.deps.mailer = data;
    const r2 = await sendAs(h, p, { to: uniqueAddress('refused'), subject: 's', text: 't' });
    h.deps.mailer = h.mailer;
    expect(r2.status).toBe(502);
    expect(data.calls).toBe(1);
    expect(await h.stored.usage(p, month())).toBe(0);
  });
});
