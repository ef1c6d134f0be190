import { idempotent, type ConsumerHandle, type JetStreamBus, type ProcessedEvents } from '@baas/common';
import type { DataDeps } from '../ports';
import { dropProjectData } from '../domain/collections/manage-collections';

export const PROJECT_DELETED_DURABLE = 'data-project-deleted';

/** A deleted project's documents, collections and quota counter are removed (idempotent). */
export function consumeProjectDeleted(
  bus: JetStreamBus,
  processed: ProcessedEvents,
  deps: DataDeps,
): Promise<ConsumerHandle> {
  return bus.consume({
    durable: PROJECT_DELETED_DURABLE,
    types: ['project.deleted'],
    handler: idempotent(processed, PROJECT_DELETED_DURABLE, (event) =>
      dropProjectData(deps, event.projectId),
    ),
  });
}
