import { z } from 'zod';
import { AppError, errors, type ProjectId } from '@baas/common';
import type { MailDeps } from '../deps';
import { monthBucket, secondsUntilNextMonth } from '../usage/buckets';
import {
  resolveTemplateById,
  resolveTemplateByName,
  templateNotFound,
  type ResolvedTemplate,
} from '../templates/resolve-template';
import { MAX_SUBJECT_CHARS, MAX_TEMPLATE_CHARS } from '../templates/template';
import { SYSTEM_TEMPLATE_KEYS } from '../templates/builtin';
import { parseRecipient } from './address';
import { deliver, type DeliveryRequest } from './deliver';
import { renderMail, type MailContent, type RenderedMail } from './render';
import { sanitizeVariables } from './sanitize-variables';

/** What a 503 for a mail server that could not take the message asks a client to wait. */
const MAIL_RETRY_AFTER_SECONDS = 5;

/** Body of POST /api/mail/send. Unknown fields (cc, bcc, from, headers...) are refused. */
export const sendMailSchema = z
  .object({
    to: z.unknown(),
    subject: z.string().max(MAX_SUBJECT_CHARS).optional(),
    html: z.string().max(MAX_TEMPLATE_CHARS).optional(),
    text: z.string().max(MAX_TEMPLATE_CHARS).optional(),
    templateId: z.string().max(64).optional(),
    templateName: z.string().min(1).max(128).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type SendMailInput = z.infer<typeof sendMailSchema>;

export interface SendContext {
  projectId: ProjectId;
  requestId: string;
  monthlyLimit: number | undefined;
}

interface Chosen {
  content: MailContent;
  templateKey?: string;
  /** Direct content is only run through mustache when variables are given. */
  render: boolean;
}

async function chooseContent(deps: MailDeps, projectId: ProjectId, input: SendMailInput): Promise<Chosen> {
  const templateMode = input.templateId !== undefined || input.templateName !== undefined;
  if (input.templateId !== undefined && input.templateName !== undefined)
    throw errors.badRequest('TEMPLATE_ID_AND_NAME', 'Give either templateId or templateName, not both');
  if (templateMode) {
    if (input.subject !== undefined || input.html !== undefined || input.text !== undefined)
      throw errors.badRequest('MIXED_MAIL_MODES', 'Template mode takes no subject, html or text');
    let t: ResolvedTemplate | null;
    if (input.templateId !== undefined) t = await resolveTemplateById(deps, projectId, input.templateId);
    else t = await resolveTemplateByName(deps, projectId, input.templateName ?? '');
    if (!t) throw templateNotFound();
    if (isPlatformSystemTemplate(t))
      throw errors.badRequest(
        'SYSTEM_TEMPLATE_RESERVED',
        `The platform's ${t.key} template is sent only by the platform itself (verification and password reset)`,
        [{ path: input.templateId !== undefined ? 'templateId' : 'templateName', message: 'reserved' }],
      );
    return { content: t.content, templateKey: t.key, render: true };
  }
  if (input.subject === undefined || (input.html === undefined && input.text === undefined))
    throw errors.validation('Give templateId or templateName, or subject with html or text', [
      { path: input.subject === undefined ? 'subject' : 'html', message: 'required in direct mode' },
    ]);
  if (/[\r\n\u2028\u2029]/.test(input.subject))
    throw errors.validation('The subject must be one line', [
      { path: 'subject', message: 'must not contain CR or LF' },
    ]);
  const content: MailContent = { subject: input.subject };
  if (input.html !== undefined) content.html = input.html;
  if (input.text !== undefined) content.text = input.text;
  return { content, render: input.variables !== undefined };
}

/**
 * The platform's verification and reset mails (built in, or the operator's global version) look
 * like the platform speaking; sent through the API with a caller-chosen link they would be
 * phishing in the platform's name. A project's own override stays the project's to send.
 */
function isPlatformSystemTemplate(t: ResolvedTemplate): boolean {
  return t.source !== 'project' && SYSTEM_TEMPLATE_KEYS.has(t.key);
}

function renderDirect(content: MailContent) {
  const subject = content.subject.trim();
  if (subject === '') throw errors.badRequest('EMPTY_SUBJECT', 'The subject is empty');
  const html = content.html?.trim() ? content.html : undefined;
  const text = content.text?.trim() ? content.text : undefined;
  if (html === undefined && text === undefined) throw errors.badRequest('EMPTY_BODY', 'The body is empty');
  return { subject, ...(html !== undefined ? { html } : {}), ...(text !== undefined ? { text } : {}) };
}

/** POST /api/mail/send: validate, render, count against the month, send, answer. */
export async function sendApiMail(deps: MailDeps, ctx: SendContext, input: SendMailInput) {
  const to = parseRecipient(input.to);
  const chosen = await chooseContent(deps, ctx.projectId, input);
  const mail = chosen.render
    ? renderMail(chosen.content, sanitizeVariables(input.variables))
    : renderDirect(chosen.content);
  return sendCounted(deps, ctx, to, mail, { templateKey: chosen.templateKey });
}

/**
 * Sends a rendered mail as the API does: it takes one unit of the project's month first (429
 * past the limit), gives it back when nothing left our hands, and maps delivery failures.
 */
export async function sendCounted(
  deps: MailDeps,
  ctx: SendContext,
  to: string,
  mail: RenderedMail,
  chosen: Pick<DeliveryRequest, 'templateKey' | 'audit'>,
) {
  const limit = ctx.monthlyLimit ?? deps.limits.defaultMonthly;
  const now = deps.now();
  const bucket = monthBucket(now);
  const usage = limit > 0 ? await deps.usage.tryIncrement(ctx.projectId, bucket, limit) : null;
  if (usage === null) {
    deps.observer?.mail(chosen.templateKey !== undefined ? 'template' : 'direct', 'limited');
    throw new AppError(429, 'MAIL_LIMIT_EXCEEDED', `Monthly mail limit of ${limit} reached`, undefined, {
      'Retry-After': String(secondsUntilNextMonth(now)),
    });
  }

  let result;
  try {
    result = await deliver(deps, {
      projectId: ctx.projectId,
      requestId: ctx.requestId,
      to,
      mail,
      system: false,
      ...chosen,
    });
  } catch (e) {
    await deps.usage.release(ctx.projectId, bucket, usage.slot);
    throw e;
  }
  if (!result.ok) {
    // Nothing left our hands, so nothing counts against the month.
    await deps.usage.release(ctx.projectId, bucket, usage.slot);
    if (result.error.recipientRejected)
      throw errors.badRequest(
        'RECIPIENT_REJECTED',
        `The mail server refused the recipient: ${result.error.message}`,
      );
    // A refusal is the mail server's answer (502); a server that could not be reached, or that
    // deferred the message (a 4xx reply), after every attempt is a dependency away: 503, retry.
    if (result.error.permanent)
      throw new AppError(
        502,
        'MAIL_DELIVERY_FAILED',
        `The mail server refused the message: ${result.error.message}`,
      );
    throw new AppError(
      503,
      'MAIL_DELIVERY_FAILED',
      'The mail server could not be reached or deferred the message; it was not sent, please retry',
      undefined,
      { 'Retry-After': String(MAIL_RETRY_AFTER_SECONDS) },
    );
  }
  return { id: result.id, provider: deps.mailer.provider, monthlyUsage: usage.count, monthlyLimit: limit };
}
