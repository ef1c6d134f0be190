import { auditEvent, createEvent, type EventEnvelope } from '@baas/common';
import type { Caller } from './access';
import type { DocumentId } from './document-id';

export type DocumentChange =
  'document.created' | 'document.updated' | 'document.trashed' | 'document.restored';

/**
 * The events a document write hands to the store with the change: its `document.*` event and,
 * when the platform admin made it, the `audit.recorded` entry (so both exist exactly when it does).
 */
export function documentEvents(
  caller: Caller,
  change: DocumentChange,
  collection: string,
  documentId: DocumentId,
): EventEnvelope[] {
  const events: EventEnvelope[] = [
    createEvent(change, caller.projectId, { collection, documentId }, { requestId: caller.requestId }),
  ];
  if (caller.audit)
    events.push(
      auditEvent(
        caller.projectId,
        caller.audit,
        change,
        { type: 'document', id: documentId },
        { collection },
      ),
    );
  return events;
}
