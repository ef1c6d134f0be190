import type { Db, Document, ObjectId } from 'mongodb';
import type { Logger, ProjectId } from '@baas/common';
import type { MongoPendingIndex } from './pending-index';

/** Bump to run the backfill again (a new kind of marker, say). */
const BACKFILL_ID = 'pending-index-backfill-v1';

export interface BackfillResult {
  collections: number;
  outbox: number;
  trash: number;
}

/**
 * The outbox and trash indexes (`pending-index.ts`) know only what was written since they
 * existed. Once per database, this walks every registered collection and marks what earlier
 * versions left there: documents still holding unpublished events, and trashed documents (with
 * their deletedAt, so the purge sees them when their grace ends). Idempotent (markers are
 * upserts) and safe to run on several replicas at once; done is recorded only at the end, so a
 * crash halfway runs it again. It costs one pass over the data, once, not one per sweep.
 */
export async function backfillPendingIndex(opts: {
  serviceDb: Db;
  projectDb: (projectId: ProjectId) => Db;
  pending: MongoPendingIndex;
  logger: Logger;
}): Promise<BackfillResult | null> {
  const state = opts.serviceDb.collection<{ _id: string } & Document>('pending_index_state');
  if (await state.findOne({ _id: BACKFILL_ID })) return null;
  const result: BackfillResult = { collections: 0, outbox: 0, trash: 0 };
  const defs = opts.serviceDb
    .collection<{ projectId: string; name: string }>('collections')
    .find({}, { projection: { projectId: 1, name: 1 } });
  for await (const def of defs) {
    const projectId = def.projectId as ProjectId;
    const coll = opts.projectDb(projectId).collection<{ _id: ObjectId; deletedAt?: Date | null }>(def.name);
    result.collections++;
    for await (const d of coll.find({ '_outbox.0': { $exists: true } }, { projection: { _id: 1 } })) {
      await opts.pending.markOutbox(projectId, def.name, d._id.toHexString());
      result.outbox++;
    }
    for await (const d of coll.find({ isDeleted: true }, { projection: { _id: 1, deletedAt: 1 } })) {
      await opts.pending.markTrash(projectId, def.name, d._id.toHexString(), d.deletedAt ?? new Date(0));
      result.trash++;
    }
  }
  await state.updateOne({ _id: BACKFILL_ID }, { $set: { doneAt: new Date(), ...result } }, { upsert: true });
  opts.logger.info(result, 'pending-index backfill done');
  return result;
}
