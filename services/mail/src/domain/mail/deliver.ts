import {
  auditEvent,
  createEvent,
  type AuditAction,
  type AuditSource,
  type AuditTarget,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import { DeliveryError, type MailKind, type MessageOwner } from '../../ports';
import type { MailDeps } from '../deps';
import type { RenderedMail } from './render';

export interface DeliveryRequest {
  /** The project whose mail it is; null for a platform mail of no project (no mail.* event then). */
  projectId: MessageOwner;
  requestId: string | null;
  to: string;
  mail: RenderedMail;
  templateKey?: string;
  system: boolean;
  causedBy?: string;
  /** An admin's send (of a project): its audit entry is written with the message's final status. */
  audit?: { source: AuditSource; action: AuditAction; target: AuditTarget };
}

export type DeliveryResult =
  | { ok: true; id: string; attempts: number }
  | { ok: false; id: string; attempts: number; error: DeliveryError };

export function mailKind(req: Pick<DeliveryRequest, 'system' | 'templateKey'>): MailKind {
  if (req.system) return 'system';
  return req.templateKey !== undefined ? 'template' : 'direct';
}

function asDeliveryError(e: unknown): DeliveryError {
  if (e instanceof DeliveryError) return e;
  // Anything unclassified (a bug, a dropped socket) is worth another attempt.
  return new DeliveryError((e as Error | undefined)?.message ?? 'unknown error', false);
}

/**
 * Sends synchronously: the message record exists before the first attempt, transient failures
 * are retried with exponential backoff, and the final status is written together with its
 * mail.sent / mail.failed event. The caller answers only after this returns, so a success
 * answer always means the SMTP server accepted the message.
 */
export async function deliver(deps: MailDeps, req: DeliveryRequest): Promise<DeliveryResult> {
  const id = deps.ids.messageId();
  const meta = { requestId: req.requestId };
  const { projectId } = req;
  const audited = (status: 'sent' | 'failed'): EventEnvelope[] =>
    req.audit && projectId !== null
      ? [
          auditEvent(projectId, req.audit.source, req.audit.action, req.audit.target, {
            messageId: id,
            status,
          }),
        ]
      : [];
  // mail.sent / mail.failed are project events; a platform mail's record is its only trace.
  const outcome = (event: (p: ProjectId) => EventEnvelope): EventEnvelope[] =>
    projectId === null ? [] : [event(projectId)];
  await deps.messages.create(projectId, {
    id,
    to: req.to,
    system: req.system,
    provider: deps.mailer.provider,
    status: 'sending',
    createdAt: deps.now(),
    ...(req.templateKey !== undefined ? { templateKey: req.templateKey } : {}),
    ...(req.causedBy !== undefined ? { causedBy: req.causedBy } : {}),
  });

  let attempts = 0;
  let error: DeliveryError | undefined;
  while (attempts < deps.retry.attempts) {
    attempts++;
    try {
      await deps.mailer.send({ id, to: req.to, ...req.mail });
      error = undefined;
      break;
    } catch (e) {
      error = asDeliveryError(e);
      deps.logger.warn(
        { messageId: id, attempt: attempts, permanent: error.permanent, reason: error.message },
        'smtp send failed',
      );
      if (error.permanent || attempts >= deps.retry.attempts) break;
      await deps.sleep(deps.retry.baseDelayMs * 4 ** (attempts - 1));
    }
  }

  if (!error) {
    const data = {
      messageId: id,
      system: req.system,
      ...(req.templateKey !== undefined ? { templateKey: req.templateKey } : {}),
    };
    try {
      await deps.messages.markSent(projectId, id, attempts, [
        ...outcome((p) => createEvent('mail.sent', p, data, meta)),
        ...audited('sent'),
      ]);
    } catch (err) {
      // The server has the message; failing the request now would invite a duplicate send.
      deps.logger.error({ err, messageId: id }, 'mail sent but its record could not be updated');
    }
    deps.observer?.mail(mailKind(req), 'sent');
    return { ok: true, id, attempts };
  }
  const failed = { messageId: id, reason: error.message.slice(0, 300), permanent: error.permanent };
  await deps.messages.markFailed(projectId, id, attempts, error.message.slice(0, 300), [
    ...outcome((p) => createEvent('mail.failed', p, failed, meta)),
    ...audited('failed'),
  ]);
  deps.observer?.mail(mailKind(req), 'failed');
  return { ok: false, id, attempts, error };
}
