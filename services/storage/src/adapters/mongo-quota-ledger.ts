import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError, type ProjectId } from '@baas/common';
import type { QuotaLedger } from '../ports';

interface UsageDoc {
  _id: string;
  used: number;
}

/**
 * One usage document per project. A reservation is a single conditional increment
 * (`used <= limit - bytes`), atomic on FerretDB and MongoDB alike, so parallel uploads can
 * never push usage past the quota.
 */
export class MongoQuotaLedger implements QuotaLedger {
  readonly coll: Collection<UsageDoc>;
  constructor(db: Db) {
    this.coll = db.collection<UsageDoc>('usage');
  }

  async reserve(projectId: ProjectId, bytes: number, limit: number): Promise<boolean> {
    if (bytes > limit) return false;
    const cond = { _id: projectId, used: { $lte: limit - bytes } };
    if (await this.coll.findOneAndUpdate(cond, { $inc: { used: bytes } })) return true;
    if ((await this.coll.countDocuments({ _id: projectId }, { limit: 1 })) > 0) return false;
    try {
      await this.coll.insertOne({ _id: projectId, used: 0 });
    } catch (e) {
      if (!isDuplicateKeyError(e)) throw e;
    }
    return (await this.coll.findOneAndUpdate(cond, { $inc: { used: bytes } })) !== null;
  }

  async release(projectId: ProjectId, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    await this.coll.updateOne({ _id: projectId }, { $inc: { used: -bytes } });
  }

  async used(projectId: ProjectId): Promise<number> {
    return (await this.coll.findOne({ _id: projectId }))?.used ?? 0;
  }

  async drop(projectId: ProjectId): Promise<void> {
    await this.coll.deleteOne({ _id: projectId });
  }
}

/** The orphan scan's position, one document. */
export class MongoSweepCursor {
  private readonly coll: Collection<{ _id: string; after?: string }>;
  constructor(db: Db) {
    this.coll = db.collection('sweep_state');
  }
  async get(): Promise<string | undefined> {
    return (await this.coll.findOne({ _id: 'orphans' }))?.after ?? undefined;
  }
  async set(after: string | undefined): Promise<void> {
    await this.coll.updateOne({ _id: 'orphans' }, after ? { $set: { after } } : { $unset: { after: '' } }, { upsert: true });
  }
}
