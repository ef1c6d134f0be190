import type { Collection, Db } from 'mongodb';
import { type ProjectId } from '@baas/common';
import { isDuplicateKeyError } from '@baas/common/mongo';
import type { KeyedMutex } from '@baas/common';

interface CounterDoc {
  _id: string;
  count: number;
}

/**
 * One counter per project in the catalogue database. A reservation is a conditional increment
 * (`count < limit`), atomic on MongoDB; FerretDB's updates are not isolated, so changes of one
 * project's counter are also serialized in this process (one data-service replica on FerretDB).
 */
export class MongoDocumentQuota {
  readonly coll: Collection<CounterDoc>;
  private readonly known = new Set<string>();

  constructor(
    db: Db,
    private readonly locks: KeyedMutex,
  ) {
    this.coll = db.collection<CounterDoc>('document_counts');
  }

  private async ensure(projectId: ProjectId): Promise<void> {
    if (this.known.has(projectId)) return;
    try {
      await this.coll.updateOne({ _id: projectId }, { $setOnInsert: { count: 0 } }, { upsert: true });
    } catch (e) {
      if (!isDuplicateKeyError(e)) throw e;
    }
    this.known.add(projectId);
  }

  reserve(projectId: ProjectId, limit: number): Promise<boolean> {
    return this.locks.run(`quota:${projectId}`, async () => {
      await this.ensure(projectId);
      const r = await this.coll.findOneAndUpdate(
        { _id: projectId, count: { $lt: limit } },
        { $inc: { count: 1 } },
      );
      return r !== null;
    });
  }

  release(projectId: ProjectId, count: number): Promise<void> {
    return this.locks.run(`quota:${projectId}`, async () => {
      await this.coll.updateOne({ _id: projectId, count: { $gte: count } }, { $inc: { count: -count } });
    });
  }

  async used(projectId: ProjectId): Promise<number> {
    return (await this.coll.findOne({ _id: projectId }))?.count ?? 0;
  }

  drop(projectId: ProjectId): Promise<void> {
    return this.locks.run(`quota:${projectId}`, async () => {
      this.known.delete(projectId);
      await this.coll.deleteOne({ _id: projectId });
    });
  }
}
