import type { Collection, Db, Filter } from 'mongodb';
import { trustedProjectId } from '@baas/common';
import { isDuplicateKeyError } from '@baas/common/mongo';
import type { AuditLog } from '../ports';
import type { AuditEntry, AuditQuery } from '../domain/audit/audit-entry';

/** An entry as stored: its id is the document's `_id`. */
type AuditDoc = Omit<AuditEntry, 'id' | 'projectId'> & { _id: string; projectId: string | null };

function toEntry({ _id, projectId, ...rest }: AuditDoc): AuditEntry {
  return { ...rest, id: _id, projectId: projectId === null ? null : trustedProjectId(projectId) };
}

/**
 * The audit log in the auth database's `audit_log` collection. Appending is an insert under the
 * entry id (atomic on MongoDB and FerretDB alike), so a redelivered event records nothing twice.
 */
export class MongoAuditLog implements AuditLog {
  readonly coll: Collection<AuditDoc>;
  constructor(db: Db) {
    this.coll = db.collection<AuditDoc>('audit_log');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1, at: -1, _id: -1 });
    await this.coll.createIndex({ at: -1, _id: -1 });
  }

  async append(e: AuditEntry): Promise<void> {
    try {
      const { id, ...fields } = e;
      await this.coll.insertOne({ _id: id, ...fields });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  async purgeBefore(cutoff: Date, limit: number): Promise<number> {
    const old = await this.coll
      .find({ at: { $lt: cutoff } }, { projection: { _id: 1 } })
      .sort({ at: 1, _id: 1 })
      .limit(limit)
      .toArray();
    if (old.length === 0) return 0;
    const { deletedCount } = await this.coll.deleteMany({ _id: { $in: old.map((d) => d._id) } });
    return deletedCount;
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    const filter: Filter<AuditDoc> = {};
    if (q.projectId) filter.projectId = q.projectId;
    if (q.action) filter.action = q.action;
    if (q.before) filter.$or = [{ at: { $lt: q.before.at } }, { at: q.before.at, _id: { $lt: q.before.id } }];
    const docs = await this.coll.find(filter).sort({ at: -1, _id: -1 }).limit(q.limit).toArray();
    return docs.map(toEntry);
  }
}
