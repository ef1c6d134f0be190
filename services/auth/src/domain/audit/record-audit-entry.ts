import type { EventEnvelope } from '@baas/common';
import type { AuditLog } from '../../ports';
import { entryFromEvent } from './audit-entry';

/**
 * On `audit.recorded` (from any service's outbox): keeps the entry. Idempotent by the event id,
 * so a redelivery after a crash records nothing twice and needs no separate claim.
 */
export async function recordAuditEntry(log: AuditLog, event: EventEnvelope): Promise<void> {
  if (event.type !== 'audit.recorded') return;
  await log.append(entryFromEvent(event as EventEnvelope<'audit.recorded'>));
}
