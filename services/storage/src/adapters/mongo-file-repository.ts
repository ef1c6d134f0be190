import type { Collection, Db, Document } from 'mongodb';
import { trustedProjectId, type EventEnvelope, type ProjectId, type TimeKeyset } from '@baas/common';
import { HIDE_OUTBOX, PURGE_FIELD, purgeWithEvents, pushEvents, type OutboxFields } from '@baas/common/mongo';
import type { FileRecord, FileRepository, FileStatus } from '../ports';
import { KeyedMutex } from '@baas/common';

interface FileDoc extends OutboxFields {
  /** The file path `<projectId>/<name>`: unique by construction. */
  _id: string;
  projectId: string;
  status: FileStatus | 'deleted';
  contentType: string;
  originalName: string;
  size: number;
  reserved: number;
  createdAt: Date;
  updatedAt: Date;
  verifiedAt?: Date;
  /** First sweep that found the object gone (cleared when it is found again). */
  missingSince?: Date;
}

function toRecord(d: FileDoc): FileRecord {
  return {
    path: d._id,
    projectId: trustedProjectId(d.projectId),
    status: d.status === 'complete' ? 'complete' : 'pending',
    contentType: d.contentType,
    originalName: d.originalName,
    size: d.size,
    reserved: d.reserved ?? 0,
    createdAt: d.createdAt,
    ...(d.missingSince ? { missingSince: d.missingSince } : {}),
  };
}

/** File metadata in `files`, one document per path; every query is scoped by project. */
export class MongoFileRepository implements FileRepository {
  readonly coll: Collection<FileDoc>;
  private readonly lock = new KeyedMutex();

  /**
   * `afterEventWrite` lets the outbox relay publish right after a write that recorded events. It
   * is awaited: FerretDB does not isolate updates, so the relay's own update of a record must be
   * over before the client can cause the next write to it (an upload answered while the relay
   * still pulled its event could otherwise resurrect the record of a quick delete).
   */
  constructor(
    db: Db,
    private readonly afterEventWrite: (coll: Collection, id: string) => Promise<void> = () =>
      Promise.resolve(),
  ) {
    this.coll = db.collection<FileDoc>('files');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1, status: 1 });
    await this.coll.createIndex({ status: 1, createdAt: 1 });
    await this.coll.createIndex({ projectId: 1, status: 1, createdAt: -1, _id: -1 });
  }

  async insertPending(rec: FileRecord): Promise<void> {
    const now = new Date();
    await this.coll.insertOne({
      _id: rec.path,
      projectId: rec.projectId,
      status: 'pending',
      contentType: rec.contentType,
      originalName: rec.originalName,
      size: 0,
      reserved: 0,
      createdAt: rec.createdAt,
      updatedAt: now,
    });
  }

  async addReserved(projectId: ProjectId, path: string, bytes: number): Promise<void> {
    await this.coll.updateOne({ _id: path, projectId }, { $inc: { reserved: bytes } });
  }

  async complete(
    projectId: ProjectId,
    path: string,
    size: number,
    events: EventEnvelope[],
  ): Promise<boolean> {
    const r = await this.coll.updateOne(
      { _id: path, projectId, status: 'pending' },
      pushEvents({ $set: { status: 'complete', size, reserved: 0, updatedAt: new Date() } }, events),
    );
    if (r.modifiedCount === 1) await this.afterEventWrite(this.coll as unknown as Collection, path);
    return r.modifiedCount === 1;
  }

  async remove(projectId: ProjectId, path: string): Promise<void> {
    await this.coll.deleteOne({ _id: path, projectId });
  }

  async findComplete(projectId: ProjectId, path: string): Promise<FileRecord | null> {
    const d = await this.coll.findOne(
      { _id: path, projectId, status: 'complete' },
      { projection: HIDE_OUTBOX },
    );
    return d ? toRecord(d) : null;
  }

  async listComplete(
    projectId: ProjectId,
    page: { limit: number; before?: TimeKeyset },
  ): Promise<FileRecord[]> {
    const b = page.before;
    const after = b ? { $or: [{ createdAt: { $lt: b.at } }, { createdAt: b.at, _id: { $lt: b.id } }] } : {};
    const docs = await this.coll
      .find({ projectId, status: 'complete', ...after }, { projection: HIDE_OUTBOX })
      .sort({ createdAt: -1, _id: -1 })
      .limit(page.limit)
      .toArray();
    return docs.map(toRecord);
  }

  async deleteComplete(
    projectId: ProjectId,
    path: string,
    events: EventEnvelope[],
  ): Promise<FileRecord | null> {
    // The record stays (marked) until the relay has published file.deleted, then it is purged.
    const update = purgeWithEvents(events) as { $set: Document };
    update.$set = { ...update.$set, status: 'deleted', updatedAt: new Date() };
    // Conditional on `complete`, so of two concurrent deletes only one wins (see KeyedMutex for
    // why this process also serialises them).
    return this.lock.run(path, async () => {
      const before = await this.coll.findOne(
        { _id: path, projectId, status: 'complete' },
        { projection: HIDE_OUTBOX },
      );
      if (!before) return null;
      const r = await this.coll.updateOne({ _id: path, projectId, status: 'complete' }, update);
      if (r.modifiedCount !== 1) return null;
      await this.afterEventWrite(this.coll as unknown as Collection, path);
      return toRecord(before);
    });
  }

  async exists(projectId: ProjectId, path: string): Promise<boolean> {
    return (await this.coll.countDocuments({ _id: path, projectId }, { limit: 1 })) > 0;
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<number> {
    // Records still waiting for the relay to publish their file.deleted keep their event.
    const r = await this.coll.deleteMany({ projectId, [PURGE_FIELD]: { $exists: false } });
    return r.deletedCount;
  }

  async stalePending(olderThan: Date, limit: number): Promise<FileRecord[]> {
    const docs = await this.coll
      .find({ status: 'pending', createdAt: { $lt: olderThan } }, { projection: HIDE_OUTBOX })
      .limit(limit)
      .toArray();
    return docs.map(toRecord);
  }

  async unverified(olderThan: Date, limit: number): Promise<FileRecord[]> {
    const docs = await this.coll
      .find(
        {
          status: 'complete',
          createdAt: { $lt: olderThan },
          $or: [{ verifiedAt: { $exists: false } }, { verifiedAt: { $lt: olderThan } }],
        },
        { projection: HIDE_OUTBOX },
      )
      .limit(limit)
      .toArray();
    return docs.map(toRecord);
  }

  async markVerified(projectId: ProjectId, path: string, at: Date): Promise<void> {
    await this.coll.updateOne(
      { _id: path, projectId },
      { $set: { verifiedAt: at }, $unset: { missingSince: '' } },
    );
  }

  async markMissing(projectId: ProjectId, path: string, at: Date): Promise<void> {
    // Only the sweep writes these fields, and one replica answers each janitor command.
    await this.coll.updateOne(
      { _id: path, projectId, missingSince: { $exists: false } },
      { $set: { missingSince: at } },
    );
    await this.coll.updateOne({ _id: path, projectId }, { $set: { verifiedAt: at } });
  }
}
