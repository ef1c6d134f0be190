import type { Collection, Db } from 'mongodb';
import { type ProjectId } from '@baas/common';
import { isDuplicateKeyError } from '@baas/common/mongo';
import type { QuotaLedger } from '../ports';
import { KeyedMutex } from '@baas/common';

interface UsageDoc {
  _id: string;
  used: number;
}

/**
 * One usage document per project. A reservation is a conditional increment
 * (`used <= limit - bytes`): atomic on MongoDB, and serialised per project in this process for
 * FerretDB, whose updates are not isolated (see KeyedMutex). Parallel uploads therefore never
 * push usage past the quota.
 */
export class MongoQuotaLedger implements QuotaLedger {
  readonly coll: Collection<UsageDoc>;
  private readonly lock = new KeyedMutex();
  constructor(db: Db) {
    this.coll = db.collection<UsageDoc>('usage');
  }

  async reserve(projectId: ProjectId, bytes: number, limit: number): Promise<boolean> {
    if (bytes > limit) return false;
    return this.lock.run(projectId, async () => {
      const cond = { _id: projectId, used: { $lte: limit - bytes } };
      if ((await this.coll.updateOne(cond, { $inc: { used: bytes } })).modifiedCount === 1) return true;
      if ((await this.coll.countDocuments({ _id: projectId }, { limit: 1 })) > 0) return false;
      try {
        await this.coll.insertOne({ _id: projectId, used: 0 });
      } catch (e) {
        if (!isDuplicateKeyError(e)) throw e;
      }
      return (await this.coll.updateOne(cond, { $inc: { used: bytes } })).modifiedCount === 1;
    });
  }

  async release(projectId: ProjectId, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    await this.lock.run(projectId, () => this.coll.updateOne({ _id: projectId }, { $inc: { used: -bytes } }));
  }

  async used(projectId: ProjectId): Promise<number> {
    return (await this.coll.findOne({ _id: projectId }))?.used ?? 0;
  }

  async drop(projectId: ProjectId): Promise<void> {
    await this.lock.run(projectId, () => this.coll.deleteOne({ _id: projectId }));
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
    await this.coll.updateOne({ _id: 'orphans' }, after ? { $set: { after } } : { $unset: { after: '' } }, {
      upsert: true,
    });
  }
}
