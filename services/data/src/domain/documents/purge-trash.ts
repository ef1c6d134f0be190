import { createEvent, type JanitorReply } from '@baas/common';
import type { DataDeps } from '../../ports';

/**
 * The janitor's command: hard-delete documents trashed before `olderThan`, across every project,
 * at most `batchSize` per call, each with a `document.purged` event; their quota is released.
 */
export async function purgeTrash(deps: DataDeps, olderThan: Date, batchSize: number): Promise<JanitorReply> {
  const { processed, more } = await deps.documents.purgeTrash(
    olderThan,
    batchSize,
    (projectId, collection, id) => [
      createEvent('document.purged', projectId, { collection, documentId: id }),
    ],
  );
  return { ok: true, processed, more };
}
