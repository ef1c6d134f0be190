import type { Collection, Db } from 'mongodb';
import { type ProjectId } from '@baas/common';
import { isDuplicateKeyError } from '@baas/common/mongo';
import type { CodeClaims } from '../ports';

interface ClaimDoc {
  _id: string;
  projectId: string;
  expiresAt: Date;
}

/**
 * Attempts and uses of one-time codes as unique-key inserts. FerretDB's conditional updates and
 * $inc are not atomic under concurrency (measured: 12 parallel $inc can end at 1), so counting
 * attempts in the user document would let parallel guesses slip past the limit.
 */
export class MongoCodeClaims implements CodeClaims {
  readonly coll: Collection<ClaimDoc>;
  constructor(db: Db) {
    this.coll = db.collection<ClaimDoc>('code_claims');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1 });
    await this.coll.createIndex({ expiresAt: 1 });
  }

  private async insert(projectId: ProjectId, id: string, expiresAt: Date): Promise<boolean> {
    try {
      await this.coll.insertOne({ _id: id, projectId, expiresAt });
      return true;
    } catch (e) {
      if (isDuplicateKeyError(e)) return false;
      throw e;
    }
  }

  async reserveAttempt(projectId: ProjectId, codeId: string, max: number, expiresAt: Date): Promise<boolean> {
    for (let n = 1; n <= max; n++) if (await this.insert(projectId, `${codeId}:${n}`, expiresAt)) return true;
    return false;
  }

  async exhausted(projectId: ProjectId, codeId: string, max: number): Promise<boolean> {
    return (
      (await this.coll.findOne({ _id: `${codeId}:${max}`, projectId }, { projection: { _id: 1 } })) !== null
    );
  }

  claimUse(projectId: ProjectId, codeId: string, expiresAt: Date): Promise<boolean> {
    return this.insert(projectId, `${codeId}:used`, expiresAt);
  }

  async deleteProject(projectId: ProjectId): Promise<void> {
    await this.coll.deleteMany({ projectId });
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const ids = await this.coll
      .find({ expiresAt: { $lt: cutoff } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (ids.length > 0) await this.coll.deleteMany({ _id: { $in: ids.map((d) => d._id) } });
    return ids.length;
  }
}
