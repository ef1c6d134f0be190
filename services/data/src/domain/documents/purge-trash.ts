import { createEvent, type JanitorReply } from '@baas/common';
import { PURGE_FIELD } from '@baas/common/mongo';
import type { DataDeps } from '../../ports';

/**
 * The janitor's command: hard-delete documents trashed before `olderThan`, across every project,
 * at most `batchSize` per call. Each gets a `document.purged` event; the outbox relay deletes the
 * document once the event is out, and the project's quota is released.
 */
export async function purgeTrash(deps: DataDeps, olderThan: Date, batchSize: number): Promise<JanitorReply> {
  let processed = 0;
  let more = false;
  for (const { projectId, name } of await deps.catalogue.all()) {
    const budget = batchSize - processed;
    if (budget <= 0) {
      more = true;
      break;
    }
    const coll = deps.documents.forProject(projectId).collection(name);
    const eligible = { isDeleted: true, deletedAt: { $lt: olderThan }, [PURGE_FIELD]: { $ne: true } };
    const candidates = await coll.find(eligible, { limit: budget + 1, maxTimeMS: 30_000 });
    if (candidates.length > budget) more = true;
    for (const doc of candidates.slice(0, budget)) {
      const event = createEvent('document.purged', projectId, {
        collection: name,
        documentId: doc._id.toHexString(),
      });
      if (!(await coll.purge({ ...eligible, _id: doc._id }, [event]))) continue;
      processed++;
      await deps.quota.release(projectId, 1);
      deps.outbox.afterWrite(projectId, name, doc._id);
    }
  }
  return { ok: true, processed, more };
}
