import { idempotent, type ConsumerHandle, type JetStreamBus, type ProcessedEvents } from '@baas/common';
import type { FileDeps } from './domain/files/deps';
import { deleteProjectFiles } from './domain/files/delete-project-files';

export const PROJECT_DELETED_DURABLE = 'storage-project-deleted';

/** project.deleted: the project's objects, records and usage go. */
export function consumeProjectDeleted(
  bus: JetStreamBus,
  processed: ProcessedEvents,
  deps: FileDeps,
): Promise<ConsumerHandle> {
  return bus.consume({
    durable: PROJECT_DELETED_DURABLE,
    types: ['project.deleted'],
    handler: idempotent(processed, PROJECT_DELETED_DURABLE, async (event) => {
      await deleteProjectFiles(deps, event.projectId);
    }),
  });
}
