import { performance } from 'node:perf_hooks';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { traceClient, type DependencyMetrics, type DependencyOutcome } from '@baas/common';
import { DeliveryError, type Mailer, type OutgoingMail } from '../ports';
import { domainOf } from '../domain/mail/address';

export interface SmtpOptions {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  maxConnections: number;
  /** Already validated at boot: `Name <address>` or a bare address. */
  from: string;
  /** Times every send (baas_dependency_request_duration_seconds). */
  dependencies?: DependencyMetrics;
}

interface SmtpErrorShape {
  code?: string;
  responseCode?: number;
  command?: string;
  message?: string;
}

/** Transient: the connection failed or the server said "try later" (4xx). Permanent: 5xx, auth. */
export function classifySmtpError(e: unknown): DeliveryError {
  const err = (e ?? {}) as SmtpErrorShape;
  const message = err.message ?? 'smtp error';
  if (typeof err.responseCode === 'number') {
    if (err.responseCode >= 500) {
      const rcpt = err.command === 'RCPT TO' || err.code === 'EENVELOPE';
      return new DeliveryError(message, true, rcpt);
    }
    return new DeliveryError(message, false);
  }
  if (err.code === 'EAUTH' || err.code === 'EENVELOPE' || err.code === 'EMESSAGE')
    return new DeliveryError(message, true);
  return new DeliveryError(message, false);
}

/**
 * For the dependency metrics: the server refused this message for good (5xx, an envelope or
 * message it will not take): `rejected`; anything else, including a login the server refuses (the
 * platform's setting, not the message), the server saying "try later" (4xx) or no answer: `failed`.
 */
export function smtpOutcome(e: unknown): DependencyOutcome {
  const err = (e ?? {}) as SmtpErrorShape;
  if (err.code === 'EAUTH') return 'failed';
  if (typeof err.responseCode === 'number') return err.responseCode >= 500 ? 'rejected' : 'failed';
  return err.code === 'EENVELOPE' || err.code === 'EMESSAGE' ? 'rejected' : 'failed';
}

/** One pooled transport per process (SMTP handshakes are expensive). */
export class SmtpMailer implements Mailer {
  readonly provider = 'smtp';
  private readonly transport: Transporter<SMTPPool.SentMessageInfo, SMTPPool.Options>;
  private readonly fromDomain: string;

  constructor(private readonly opts: SmtpOptions) {
    const options: SMTPPool.Options = {
      pool: true,
      host: opts.host,
      port: opts.port,
      secure: opts.secure,
      maxConnections: opts.maxConnections,
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 20000,
      disableFileAccess: true,
      disableUrlAccess: true,
    };
    if (opts.user !== undefined) options.auth = { user: opts.user, pass: opts.password ?? '' };
    this.transport = nodemailer.createTransport(options);
    const m = /<([^>]+)>\s*$/.exec(opts.from);
    this.fromDomain = domainOf(m?.[1] ?? opts.from);
  }

  async send(mail: OutgoingMail): Promise<void> {
    // no instrumentation knows nodemailer: a CLIENT span of our own (nothing when tracing is off)
    await traceClient(
      'smtp send',
      { 'server.address': this.opts.host, 'server.port': this.opts.port, 'network.protocol.name': 'smtp' },
      () => this.deliver(mail),
    );
  }

  private async deliver(mail: OutgoingMail): Promise<void> {
    const start = performance.now();
    try {
      await this.transport.sendMail({
        from: this.opts.from,
        to: mail.to,
        // The envelope is explicit, so the recipient set is exactly the one address.
        envelope: { from: this.envelopeFrom(), to: [mail.to] },
        subject: mail.subject,
        ...(mail.html !== undefined ? { html: mail.html } : {}),
        ...(mail.text !== undefined ? { text: mail.text } : {}),
        messageId: `<${mail.id}@${this.fromDomain}>`,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      this.opts.dependencies?.record('smtp', 'send', start, 'ok');
    } catch (e) {
      this.opts.dependencies?.record('smtp', 'send', start, smtpOutcome(e));
      throw classifySmtpError(e);
    }
  }

  private envelopeFrom(): string {
    const m = /<([^>]+)>\s*$/.exec(this.opts.from);
    return m?.[1] ?? this.opts.from;
  }

  async verify(): Promise<void> {
    await this.transport.verify();
  }

  close(): void {
    this.transport.close();
  }
}
