import { idempotent, type ConsumerHandle, type JetStreamBus, type ProcessedEvents } from '@baas/common';
import type { MailDeps } from './domain/deps';
import { sendSystemMail, type SystemMailEvent } from './domain/mail/send-system-mail';
import { purgeProject } from './domain/projects/purge-project';

export const SYSTEM_MAIL_DURABLE = 'mail-auth-emails';
export const PROJECT_DELETED_DURABLE = 'mail-project-deleted';

/** The event entry points; they call the same use cases as the HTTP routes. */
export async function startConsumers(bus: JetStreamBus, deps: MailDeps, processed: ProcessedEvents): Promise<ConsumerHandle[]> {
  const systemMails = await bus.consume({
    durable: SYSTEM_MAIL_DURABLE,
    types: ['auth.verification_requested', 'auth.password_reset_requested'],
    // SMTP retries happen inside one delivery; the bus then backs off between deliveries.
    ackWaitMs: 60_000,
    concurrency: 8,
    handler: idempotent(processed, SYSTEM_MAIL_DURABLE, async (event) => {
      if (event.type !== 'auth.verification_requested' && event.type !== 'auth.password_reset_requested') return;
      await sendSystemMail(deps, event as SystemMailEvent);
    }),
  });
  const projectDeleted = await bus.consume({
    durable: PROJECT_DELETED_DURABLE,
    types: ['project.deleted'],
    handler: idempotent(processed, PROJECT_DELETED_DURABLE, async (event) => {
      await purgeProject(deps, event.projectId);
    }),
  });
  return [systemMails, projectDeleted];
}
