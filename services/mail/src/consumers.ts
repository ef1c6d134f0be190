import {
  idempotent,
  type ConsumerHandle,
  type EventEnvelope,
  type JetStreamBus,
  type ProcessedEvents,
} from '@baas/common';
import type { MailDeps } from './domain/deps';
import { sendConsoleMail, type ConsoleMailEvent } from './domain/mail/send-console-mail';
import { sendSystemMail, type SystemMailEvent } from './domain/mail/send-system-mail';
import { purgeProject } from './domain/projects/purge-project';

export const SYSTEM_MAIL_DURABLE = 'mail-auth-emails';
export const CONSOLE_MAIL_DURABLE = 'mail-console-emails';
export const PROJECT_DELETED_DURABLE = 'mail-project-deleted';

const isSystemMailEvent = (e: EventEnvelope): e is SystemMailEvent =>
  e.type === 'auth.verification_requested' || e.type === 'auth.password_reset_requested';

const isConsoleMailEvent = (e: EventEnvelope): e is ConsoleMailEvent =>
  e.type === 'console.invitation_requested' || e.type === 'console.password_reset_requested';

/** Verification and password-reset mails; one mail per event id, however often it is delivered. */
export function systemMailHandler(deps: MailDeps, processed: ProcessedEvents) {
  return idempotent(processed, SYSTEM_MAIL_DURABLE, async (event: EventEnvelope) => {
    if (isSystemMailEvent(event)) await sendSystemMail(deps, event);
  });
}

/** Console invitations and console password resets; one mail per event id. */
export function consoleMailHandler(deps: MailDeps, processed: ProcessedEvents) {
  return idempotent(processed, CONSOLE_MAIL_DURABLE, async (event: EventEnvelope) => {
    if (isConsoleMailEvent(event)) await sendConsoleMail(deps, event);
  });
}

export function projectDeletedHandler(deps: MailDeps, processed: ProcessedEvents) {
  return idempotent(processed, PROJECT_DELETED_DURABLE, async (event: EventEnvelope<'project.deleted'>) => {
    await purgeProject(deps, event.projectId);
  });
}

/** The event entry points; they call the same use cases as the HTTP routes. */
export async function startConsumers(
  bus: JetStreamBus,
  deps: MailDeps,
  processed: ProcessedEvents,
): Promise<ConsumerHandle[]> {
  // SMTP retries happen inside one delivery; the bus then backs off between deliveries.
  const smtp = { ackWaitMs: 60_000, concurrency: 8 };
  const systemMails = await bus.consume({
    durable: SYSTEM_MAIL_DURABLE,
    types: ['auth.verification_requested', 'auth.password_reset_requested'],
    ...smtp,
    handler: systemMailHandler(deps, processed),
  });
  const consoleMails = await bus.consume({
    durable: CONSOLE_MAIL_DURABLE,
    types: ['console.invitation_requested', 'console.password_reset_requested'],
    ...smtp,
    handler: consoleMailHandler(deps, processed),
  });
  const projectDeleted = await bus.consume({
    durable: PROJECT_DELETED_DURABLE,
    types: ['project.deleted'],
    handler: projectDeletedHandler(deps, processed),
  });
  return [systemMails, consoleMails, projectDeleted];
}
