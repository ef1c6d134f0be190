import type { Collection, Db } from 'mongodb';
import type { ConsoleSessionRepository } from '../ports';
import type { ConsoleSessionRecord } from '../domain/console/account';

interface SessionDoc {
  _id: string;
  accountId: string;
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
  clientIp: string | null;
  userAgent: string | null;
}

function toSession(d: SessionDoc): ConsoleSessionRecord {
  const s: ConsoleSessionRecord = {
    id: d._id,
    accountId: d.accountId,
    tokenHash: d.tokenHash,
    createdAt: d.createdAt,
    expiresAt: d.expiresAt,
    clientIp: d.clientIp ?? null,
    userAgent: d.userAgent ?? null,
  };
  if (d.revokedAt) s.revokedAt = d.revokedAt;
  return s;
}

/** Console sessions in `console_sessions`; revocation is an idempotent $set (no events). */
export class MongoConsoleSessionRepository implements ConsoleSessionRepository {
  readonly coll: Collection<SessionDoc>;
  constructor(db: Db) {
    this.coll = db.collection<SessionDoc>('console_sessions');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ tokenHash: 1 }, { unique: true });
    await this.coll.createIndex({ accountId: 1 });
    await this.coll.createIndex({ expiresAt: 1 });
  }

  async insert(s: ConsoleSessionRecord): Promise<void> {
    await this.coll.insertOne({
      _id: s.id,
      accountId: s.accountId,
      tokenHash: s.tokenHash,
      createdAt: s.createdAt,
      expiresAt: s.expiresAt,
      clientIp: s.clientIp,
      userAgent: s.userAgent,
    });
  }

  async findByTokenHash(tokenHash: string): Promise<ConsoleSessionRecord | null> {
    const d = await this.coll.findOne({ tokenHash });
    return d ? toSession(d) : null;
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const r = await this.coll.updateOne(
      { _id: id, revokedAt: { $exists: false } },
      { $set: { revokedAt: at } },
    );
    return r.modifiedCount === 1;
  }

  async revokeAccount(accountId: string, at: Date, exceptId?: string): Promise<number> {
    const filter: Record<string, unknown> = {
      accountId,
      revokedAt: { $exists: false },
      expiresAt: { $gt: at },
    };
    if (exceptId) filter._id = { $ne: exceptId };
    const r = await this.coll.updateMany(filter, { $set: { revokedAt: at } });
    return r.modifiedCount;
  }

  async deleteAccount(accountId: string): Promise<void> {
    await this.coll.deleteMany({ accountId });
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const ids = await this.coll
      .find(
        { $or: [{ expiresAt: { $lt: cutoff } }, { revokedAt: { $lt: cutoff } }] },
        { projection: { _id: 1 } },
      )
      .limit(limit)
      .toArray();
    if (ids.length > 0) await this.coll.deleteMany({ _id: { $in: ids.map((d) => d._id) } });
    return ids.length;
  }
}
