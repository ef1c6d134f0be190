import type { Collection, Db, Document } from 'mongodb';
import { type ProjectId } from '@baas/common';
import { isDuplicateKeyError, pushEvents, type OutboxFields } from '@baas/common/mongo';
import type { AuditLog, SessionFamily, SessionRepository, StoredRefreshToken } from '../ports';
import { sessionRevoked } from '../domain/sessions/session-revoked';
import type { AuditEntry } from '../domain/audit/audit-entry';

interface FamilyDoc extends OutboxFields {
  _id: string;
  projectId: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
  revokedReason?: string;
}

interface TokenDoc {
  /** SHA-256 of the token: the plaintext is never stored. */
  _id: string;
  projectId: string;
  userId: string;
  familyId: string;
  issuedAt: Date;
  expiresAt: Date;
  usedAt?: Date;
  childHash?: string;
}

function toFamily(d: FamilyDoc): SessionFamily {
  const f: SessionFamily = {
    id: d._id,
    projectId: d.projectId as ProjectId,
    userId: d.userId,
    createdAt: d.createdAt,
    expiresAt: d.expiresAt,
  };
  if (d.revokedAt) f.revokedAt = d.revokedAt;
  if (d.revokedReason) f.revokedReason = d.revokedReason;
  return f;
}

function toToken(d: TokenDoc): StoredRefreshToken {
  const t: StoredRefreshToken = {
    hash: d._id,
    projectId: d.projectId as ProjectId,
    userId: d.userId,
    familyId: d.familyId,
    issuedAt: d.issuedAt,
    expiresAt: d.expiresAt,
  };
  if (d.usedAt) t.usedAt = d.usedAt;
  if (d.childHash) t.childHash = d.childHash;
  return t;
}

/**
 * Refresh sessions: a family per login (revocation is one write on it) and one document per
 * refresh token, keyed by its hash. Rotation relies only on unique-key inserts (atomic on
 * FerretDB and MongoDB alike); revocation is an idempotent $set, so racing writers agree.
 */
export class MongoSessionRepository implements SessionRepository {
  readonly families: Collection<FamilyDoc>;
  readonly tokens: Collection<TokenDoc>;
  /**
   * `audit`: the service's audit log, where a sign-in's entry goes once its session exists.
   * `afterWrite`: a revocation carries its `auth.session_revoked` event in the family document
   * (`_outbox`, the same write); the relay publishes it at once.
   */
  constructor(
    db: Db,
    private readonly audit: Pick<AuditLog, 'append'>,
    private readonly afterWrite: (coll: Collection<Document>, id: string) => void = () => undefined,
  ) {
    this.families = db.collection<FamilyDoc>('session_families');
    this.tokens = db.collection<TokenDoc>('refresh_tokens');
  }

  async ensureIndexes(): Promise<void> {
    await this.families.createIndex({ projectId: 1, userId: 1 });
    await this.families.createIndex({ expiresAt: 1 });
    await this.tokens.createIndex({ projectId: 1, familyId: 1 });
    await this.tokens.createIndex({ expiresAt: 1 });
  }

  /**
   * The family first: a token is never stored without the family it belongs to; the sign-in's
   * audit entry (when given) last, once the session it records exists.
   */
  async startFamily(f: SessionFamily, first: StoredRefreshToken, record?: AuditEntry): Promise<void> {
    await this.families.insertOne({
      _id: f.id,
      projectId: f.projectId,
      userId: f.userId,
      createdAt: f.createdAt,
      expiresAt: f.expiresAt,
    });
    await this.insertToken(first);
    if (record) await this.audit.append(record);
  }

  async findFamily(projectId: ProjectId, familyId: string): Promise<SessionFamily | null> {
    const d = await this.families.findOne({ _id: familyId, projectId });
    return d ? toFamily(d) : null;
  }

  /** What the outbox relay must read: families carrying revocation events. */
  get relayCollection(): Collection<Document> {
    return this.families as unknown as Collection<Document>;
  }

  async revokeFamily(projectId: ProjectId, familyId: string, reason: string, at: Date): Promise<void> {
    const live = await this.families.findOne(
      { _id: familyId, projectId, revokedAt: { $exists: false } },
      { projection: { userId: 1 } },
    );
    if (live) await this.revokeOne(projectId, { id: familyId, userId: live.userId }, reason, at);
  }

  /** One write per family, each with its own event (FerretDB has no multi-document transactions). */
  async revokeUserFamilies(
    projectId: ProjectId,
    userId: string,
    reason: string,
    at: Date,
    exceptFamilyId?: string,
  ): Promise<number> {
    const filter = { projectId, userId, revokedAt: { $exists: false } } as Record<string, unknown>;
    if (exceptFamilyId) filter._id = { $ne: exceptFamilyId };
    const live = await this.families.find(filter, { projection: { _id: 1 } }).toArray();
    let revoked = 0;
    for (const f of live) if (await this.revokeOne(projectId, { id: f._id, userId }, reason, at)) revoked++;
    return revoked;
  }

  private async revokeOne(
    projectId: ProjectId,
    family: { id: string; userId: string },
    reason: string,
    at: Date,
  ): Promise<boolean> {
    const r = await this.families.updateOne(
      { _id: family.id, projectId, revokedAt: { $exists: false } },
      pushEvents({ $set: { revokedAt: at, revokedReason: reason } }, [
        sessionRevoked(projectId, family, reason),
      ]),
    );
    if (r.modifiedCount !== 1) return false;
    this.afterWrite(this.relayCollection, family.id);
    return true;
  }

  private async insertToken(t: StoredRefreshToken): Promise<void> {
    await this.tokens.insertOne({
      _id: t.hash,
      projectId: t.projectId,
      userId: t.userId,
      familyId: t.familyId,
      issuedAt: t.issuedAt,
      expiresAt: t.expiresAt,
    });
  }

  async insertTokenIfAbsent(t: StoredRefreshToken): Promise<boolean> {
    try {
      await this.insertToken(t);
      return true;
    } catch (e) {
      if (isDuplicateKeyError(e)) return false;
      throw e;
    }
  }

  async findToken(projectId: ProjectId, hash: string): Promise<StoredRefreshToken | null> {
    const d = await this.tokens.findOne({ _id: hash, projectId });
    return d ? toToken(d) : null;
  }

  async markUsed(projectId: ProjectId, hash: string, childHash: string, at: Date): Promise<void> {
    await this.tokens.updateOne(
      { _id: hash, projectId, usedAt: { $exists: false } },
      { $set: { usedAt: at, childHash } },
    );
  }

  async deleteProject(projectId: ProjectId): Promise<void> {
    await this.tokens.deleteMany({ projectId });
    await this.families.deleteMany({ projectId });
  }

  async deleteUser(projectId: ProjectId, userId: string): Promise<void> {
    await this.tokens.deleteMany({ projectId, userId });
    await this.families.deleteMany({ projectId, userId });
  }

  /**
   * Expired tokens, and families past their absolute end or revoked longer ago than a token lives
   * (so reuse of any of their tokens can no longer matter), in bounded batches.
   */
  async purgeExpired(cutoff: Date, limit: number, revokedCutoff: Date = cutoff): Promise<number> {
    const tokenIds = await this.tokens
      .find({ expiresAt: { $lt: cutoff } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (tokenIds.length > 0) await this.tokens.deleteMany({ _id: { $in: tokenIds.map((d) => d._id) } });
    const left = limit - tokenIds.length;
    if (left <= 0) return tokenIds.length;
    const famIds = await this.families
      .find(
        { $or: [{ expiresAt: { $lt: cutoff } }, { revokedAt: { $lt: revokedCutoff } }] },
        { projection: { _id: 1 } },
      )
      .limit(left)
      .toArray();
    if (famIds.length > 0) await this.families.deleteMany({ _id: { $in: famIds.map((d) => d._id) } });
    return tokenIds.length + famIds.length;
  }
}
