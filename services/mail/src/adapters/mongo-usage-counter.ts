import type { Collection, Db } from 'mongodb';
import { type ProjectId } from '@baas/common';
import { isDuplicateKeyError } from '@baas/common/mongo';
import type { UsageCounter, UsageSlot } from '../ports';

/** One document per unit of use: slot `n` of a project's bucket. */
interface SlotDoc {
  _id: string;
  projectId: string;
  bucket: string;
  n: number;
  at: Date;
}

const slotId = (projectId: ProjectId, bucket: string, n: number) => `${projectId}:${bucket}:${n}`;

/**
 * Counting with the one primitive that is atomic on FerretDB as on MongoDB: a unique _id.
 * FerretDB (SQLite) applies a conditional update or findOneAndUpdate as read-then-write, so two
 * concurrent `$inc`s under `count < limit` both pass (measured: 20 racing increments with a
 * limit of 5 ended at 4 with 17 reported successes). Instead each unit of use claims slot n in
 * 1..limit by inserting `<project>:<bucket>:<n>`; a taken slot is a duplicate key, so two
 * requests can never hold the same slot and no more than `limit` slots exist. Releasing deletes
 * the slot, and a later claim fills the hole.
 */
export class MongoUsageCounter implements UsageCounter {
  readonly coll: Collection<SlotDoc>;
  constructor(db: Db) {
    this.coll = db.collection<SlotDoc>('usage');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1, bucket: 1, n: 1 });
  }

  private async claim(projectId: ProjectId, bucket: string, n: number): Promise<boolean> {
    try {
      await this.coll.insertOne({ _id: slotId(projectId, bucket, n), projectId, bucket, n, at: new Date() });
      return true;
    } catch (e) {
      if (isDuplicateKeyError(e)) return false;
      throw e;
    }
  }

  async tryIncrement(projectId: ProjectId, bucket: string, limit: number): Promise<UsageSlot | null> {
    if (limit <= 0) return null;
    const used = await this.current(projectId, bucket);
    if (used >= limit) return null;
    // Usually slot used+1 is free; under contention the losers move up, then look for holes.
    for (let n = used + 1; n <= limit; n++)
      if (await this.claim(projectId, bucket, n)) return { slot: n, count: n };
    const taken = new Set(
      (await this.coll.find({ projectId, bucket }, { projection: { n: 1 } }).toArray()).map((d) => d.n),
    );
    for (let n = 1; n <= Math.min(used, limit); n++) {
      if (!taken.has(n) && (await this.claim(projectId, bucket, n)))
        return { slot: n, count: Math.min(limit, used + 1) };
    }
    return null;
  }

  async release(projectId: ProjectId, bucket: string, slot: number): Promise<void> {
    await this.coll.deleteOne({ _id: slotId(projectId, bucket, slot) });
  }

  async current(projectId: ProjectId, bucket: string): Promise<number> {
    return this.coll.countDocuments({ projectId, bucket });
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<void> {
    await this.coll.deleteMany({ projectId });
  }

  async deleteClaimedBefore(bucketPrefix: string, before: Date): Promise<number> {
    const escaped = bucketPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const r = await this.coll.deleteMany({ bucket: { $regex: `^${escaped}` }, at: { $lt: before } });
    return r.deletedCount;
  }
}
