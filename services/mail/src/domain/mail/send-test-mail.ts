import { z } from 'zod';
import type { AuditSource } from '@baas/common';
import type { MailDeps } from '../deps';
import { mailContentOf, templateNotFound } from '../templates/resolve-template';
import { parseRecipient } from './address';
import { renderMail } from './render';
import { sanitizeVariables } from './sanitize-variables';
import { sendCounted, type SendContext } from './send-api-mail';

/** Body of POST .../mail/templates/:key/test. */
export const testSendSchema = z
  .object({
    to: z.unknown(),
    variables: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type TestSendInput = z.infer<typeof testSendSchema>;

/**
 * Sends one of the project's own templates to an address with sample variables, as an API send
 * would: it counts against the monthly limit, and its audit entry is written with its status.
 */
export async function sendTestMail(
  deps: MailDeps,
  ctx: SendContext & { audit: AuditSource },
  key: string,
  input: TestSendInput,
) {
  const to = parseRecipient(input.to);
  const template = await deps.templates.findByKey({ scope: 'project', projectId: ctx.projectId }, key);
  if (!template) throw templateNotFound();
  const mail = renderMail(mailContentOf(template), sanitizeVariables(input.variables));
  return sendCounted(deps, ctx, to, mail, {
    templateKey: key,
    audit: { source: ctx.audit, action: 'mail.test_sent', target: { type: 'mail-template', id: key } },
  });
}
