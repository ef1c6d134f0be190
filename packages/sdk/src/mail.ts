import type { CallOptions, HttpClient } from './http.js';

interface MailBase {
  /** One bare address. */
  to: string;
}

export interface DirectMail extends MailBase {
  subject: string;
  html?: string;
  text?: string;
  templateId?: never;
  templateName?: never;
  variables?: never;
}

export type TemplateMail = MailBase & {
  variables?: Record<string, unknown>;
  subject?: never;
  html?: never;
  text?: never;
} & ({ templateId: string; templateName?: never } | { templateName: string; templateId?: never });

export type MailInput = DirectMail | TemplateMail;

export interface MailSendResult {
  id: string;
  provider: string;
  monthlyUsage: number;
  monthlyLimit: number;
}

/** Transactional mail: server-side only, with the secret key (a publishable key gets 403). */
export class MailClient {
  constructor(private readonly http: HttpClient) {}

  /** Sent synchronously: success means the SMTP server accepted it. Never retried (POST). */
  async send(input: MailInput, opts: CallOptions = {}): Promise<MailSendResult> {
    const body = await this.http.request<{ data: MailSendResult }>({
      method: 'POST',
      path: '/api/mail/send',
      json: input,
      ...opts,
    });
    return body.data;
  }
}
