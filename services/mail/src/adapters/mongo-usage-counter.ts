import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError, type ProjectId } from '@baas/common';
import type { UsageCounter } from '../ports';

interface UsageDoc {
  _id: string;
  projectId: string;
  bucket: string;
  count: number;
}

const docId = (projectId: ProjectId, bucket: string) => `${projectId}:${bucket}`;

/**
 * Counting without transactions: one conditional findOneAndUpdate with `count < limit` and
 * upsert. When the bucket exists at the limit, the upsert's insert collides on _id (duplicate
 * key), which means "full". When two requests create a bucket at once, the loser collides too;
 * it then retries once, and by then the document exists, so the retry's answer is definitive.
 */
export class MongoUsageCounter implements UsageCounter {
  readonly coll: Collection<UsageDoc>;
  constructor(db: Db) {
    this.coll = db.collection<UsageDoc>('usage');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1 });
  }

  async tryIncrement(projectId: ProjectId, bucket: string, limit: number): Promise<number | null> {
    if (limit <= 0) return null;
    const _id = docId(projectId, bucket);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const d = await this.coll.findOneAndUpdate(
          { _id, count: { $lt: limit } },
          { $inc: { count: 1 }, $setOnInsert: { projectId, bucket } },
          { upsert: true, returnDocument: 'after' },
        );
        if (d) return d.count;
      } catch (e) {
        if (!isDuplicateKeyError(e)) throw e;
      }
    }
    return null;
  }

  async release(projectId: ProjectId, bucket: string): Promise<void> {
    await this.coll.updateOne({ _id: docId(projectId, bucket), count: { $gt: 0 } }, { $inc: { count: -1 } });
  }

  async current(projectId: ProjectId, bucket: string): Promise<number> {
    const d = await this.coll.findOne({ _id: docId(projectId, bucket) });
    return d?.count ?? 0;
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<void> {
    await this.coll.deleteMany({ projectId });
  }
}
