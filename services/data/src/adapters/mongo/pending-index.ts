import type { Collection, Db } from 'mongodb';
import type { ProjectId } from '@baas/common';
import { upsertRacing } from '@baas/common/mongo';

/**
 * What background work has to visit, so it costs what is pending rather than what exists
 * (MongoDB keeps each project in its own database; there is no query across them). Two small
 * collections in the service's own database:
 *
 * - `outbox_pending`: a document that may hold unpublished events. Written before the write that
 *   records them; settled by the relay once the document has none left and the marker has not
 *   been touched for SETTLE_AFTER_MS (longer than any write can take, so a write in flight always
 *   finds its marker still there).
 * - `trash_index`: a trashed document and when it was trashed. Written before the trash write,
 *   removed after a restore; the purge re-checks the document itself, so a marker left by a crash
 *   is harmless and is dropped.
 */
export const SETTLE_AFTER_MS = 60_000;

interface Marker {
  _id: string;
  p: string;
  c: string;
  d: string;
  at: Date;
}

export interface Pending {
  key: string;
  projectId: ProjectId;
  collection: string;
  id: string;
  at: Date;
}

function key(projectId: ProjectId, collection: string, id: string): string {
  return `${projectId}:${collection}:${id}`;
}

function toPending(m: Marker): Pending {
  return { key: m._id, projectId: m.p as ProjectId, collection: m.c, id: m.d, at: m.at };
}

export class MongoPendingIndex {
  private readonly outbox: Collection<Marker>;
  private readonly trash: Collection<Marker>;

  constructor(db: Db) {
    this.outbox = db.collection<Marker>('outbox_pending');
    this.trash = db.collection<Marker>('trash_index');
  }

  async ensureIndexes(): Promise<void> {
    await this.outbox.createIndex({ at: 1 });
    await this.trash.createIndex({ at: 1 });
    await this.outbox.createIndex({ p: 1, c: 1 });
    await this.trash.createIndex({ p: 1, c: 1 });
  }

  private async mark(
    coll: Collection<Marker>,
    projectId: ProjectId,
    collection: string,
    id: string,
    at: Date,
  ) {
    // two writes of one document may mark it at once
    await upsertRacing(() =>
      coll.updateOne(
        { _id: key(projectId, collection, id) },
        { $set: { p: projectId, c: collection, d: id, at } },
        { upsert: true },
      ),
    );
  }

  markOutbox(projectId: ProjectId, collection: string, id: string): Promise<void> {
    return this.mark(this.outbox, projectId, collection, id, new Date());
  }

  async outboxBatch(limit: number): Promise<Pending[]> {
    return (await this.outbox.find({}).sort({ at: 1 }).limit(limit).toArray()).map(toPending);
  }

  /** Markers the relay has still to visit, counted up to `limit`. */
  outboxCount(limit: number): Promise<number> {
    return this.outbox.countDocuments({}, { limit });
  }

  /** Drops a marker untouched since it was read and older than SETTLE_AFTER_MS. */
  async settleOutbox(p: Pending, now: Date): Promise<void> {
    if (now.getTime() - p.at.getTime() < SETTLE_AFTER_MS) return;
    await this.outbox.deleteOne({ _id: p.key, at: p.at });
  }

  markTrash(projectId: ProjectId, collection: string, id: string, deletedAt: Date): Promise<void> {
    return this.mark(this.trash, projectId, collection, id, deletedAt);
  }

  async unmarkTrash(projectId: ProjectId, collection: string, id: string): Promise<void> {
    await this.trash.deleteOne({ _id: key(projectId, collection, id) });
  }

  async trashedBefore(cutoff: Date, limit: number): Promise<Pending[]> {
    return (
      await this.trash
        .find({ at: { $lt: cutoff } })
        .sort({ at: 1 })
        .limit(limit)
        .toArray()
    ).map(toPending);
  }

  async dropTrash(p: Pending): Promise<void> {
    await this.trash.deleteOne({ _id: p.key });
  }

  async removeCollection(projectId: ProjectId, collection: string): Promise<void> {
    await this.outbox.deleteMany({ p: projectId, c: collection });
    await this.trash.deleteMany({ p: projectId, c: collection });
  }

  async removeProject(projectId: ProjectId): Promise<void> {
    await this.outbox.deleteMany({ p: projectId });
    await this.trash.deleteMany({ p: projectId });
  }
}
