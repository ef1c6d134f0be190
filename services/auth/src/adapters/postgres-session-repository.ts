import type { ProjectId } from '@baas/common';
import type { SessionFamily, SessionRepository, StoredRefreshToken } from '../ports';
import type { AuditEntry } from '../domain/audit/audit-entry';
import type { PgAuthDatabase } from './postgres-database';
import { auditInsert, auditParams } from './postgres-audit-log';
import { sessionRevoked } from '../domain/sessions/session-revoked';

type FamilyRow = {
  id: string;
  project_id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
};

type TokenRow = {
  hash: string;
  project_id: string;
  user_id: string;
  family_id: string;
  issued_at: Date;
  expires_at: Date;
  used_at: Date | null;
  child_hash: string | null;
};

function toFamily(r: FamilyRow): SessionFamily {
  const f: SessionFamily = {
    id: r.id,
    projectId: r.project_id as ProjectId,
    userId: r.user_id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
  if (r.revoked_at) f.revokedAt = r.revoked_at;
  if (r.revoked_reason) f.revokedReason = r.revoked_reason;
  return f;
}

function toToken(r: TokenRow): StoredRefreshToken {
  const t: StoredRefreshToken = {
    hash: r.hash,
    projectId: r.project_id as ProjectId,
    userId: r.user_id,
    familyId: r.family_id,
    issuedAt: r.issued_at,
    expiresAt: r.expires_at,
  };
  if (r.used_at) t.usedAt = r.used_at;
  if (r.child_hash) t.childHash = r.child_hash;
  return t;
}

/** `INSERT INTO refresh_tokens` with the six `tokenParams` numbered from `first`. */
function tokenInsert(first: number): string {
  const values = Array.from({ length: 6 }, (_, i) => `$${first + i}`).join(', ');
  return `
  INSERT INTO refresh_tokens (hash, project_id, user_id, family_id, issued_at, expires_at)
  VALUES (${values})`;
}

const INSERT_TOKEN = tokenInsert(1);

const FAMILY_CTE = `family AS (
  INSERT INTO session_families (project_id, id, user_id, created_at, expires_at)
  VALUES ($1, $2, $3, $4, $5)
)`;

/** A login's session: its family and first token, and (RECORDED) its audit entry, in one statement. */
const START_FAMILY = `WITH ${FAMILY_CTE} ${tokenInsert(6)}`;
const START_FAMILY_RECORDED = `WITH ${FAMILY_CTE}, entry AS (${auditInsert(12)}) ${tokenInsert(6)}`;

const tokenParams = (t: StoredRefreshToken) => [
  t.hash,
  t.projectId,
  t.userId,
  t.familyId,
  t.issuedAt,
  t.expiresAt,
];

/**
 * Refresh sessions: a family per login and a row per refresh token, keyed by its hash. Rotation
 * rests on the primary key alone: the successor is inserted with ON CONFLICT DO NOTHING, and
 * PostgreSQL gives the row to exactly one caller, whichever replica it runs on. Revocation is an
 * idempotent conditional update, so racing writers agree.
 */
export class PgSessionRepository implements SessionRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  /**
   * Both rows in one statement, and the sign-in's audit entry with them when given: one round
   * trip and one commit per login instead of three, and no session without its entry.
   */
  async startFamily(f: SessionFamily, t: StoredRefreshToken, record?: AuditEntry): Promise<void> {
    const family = [f.projectId, f.id, f.userId, f.createdAt, f.expiresAt];
    if (!record) {
      await this.db.run(START_FAMILY, [...family, ...tokenParams(t)]);
      return;
    }
    await this.db.run(START_FAMILY_RECORDED, [...family, ...tokenParams(t), ...auditParams(record)]);
  }

  async findFamily(projectId: ProjectId, familyId: string): Promise<SessionFamily | null> {
    const { rows } = await this.db.run<FamilyRow>(
      `SELECT * FROM session_families WHERE project_id = $1 AND id = $2`,
      [projectId, familyId],
    );
    return rows[0] ? toFamily(rows[0]) : null;
  }

  /** The revocation and its `auth.session_revoked` event commit together (outbox). */
  async revokeFamily(projectId: ProjectId, familyId: string, reason: string, at: Date): Promise<void> {
    await this.db.transaction(async (tx, emit) => {
      const { rows } = await tx.query<{ id: string; user_id: string }>(
        `UPDATE session_families SET revoked_at = $3, revoked_reason = $4
          WHERE project_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id, user_id`,
        [projectId, familyId, at, reason],
      );
      await emit(rows.map((r) => sessionRevoked(projectId, { id: r.id, userId: r.user_id }, reason)));
    });
  }

  async revokeUserFamilies(
    projectId: ProjectId,
    userId: string,
    reason: string,
    at: Date,
    exceptFamilyId?: string,
  ): Promise<number> {
    return this.db.transaction(async (tx, emit) => {
      const { rows } = await tx.query<{ id: string }>(
        `UPDATE session_families SET revoked_at = $3, revoked_reason = $4
          WHERE project_id = $1 AND user_id = $2 AND revoked_at IS NULL AND ($5::text IS NULL OR id <> $5)
          RETURNING id`,
        [projectId, userId, at, reason, exceptFamilyId ?? null],
      );
      await emit(rows.map((r) => sessionRevoked(projectId, { id: r.id, userId }, reason)));
      return rows.length;
    });
  }

  async insertTokenIfAbsent(t: StoredRefreshToken): Promise<boolean> {
    const { rowCount } = await this.db.run(`${INSERT_TOKEN} ON CONFLICT (hash) DO NOTHING`, tokenParams(t));
    return rowCount === 1;
  }

  async findToken(projectId: ProjectId, hash: string): Promise<StoredRefreshToken | null> {
    const { rows } = await this.db.run<TokenRow>(
      `SELECT * FROM refresh_tokens WHERE project_id = $1 AND hash = $2`,
      [projectId, hash],
    );
    return rows[0] ? toToken(rows[0]) : null;
  }

  async markUsed(projectId: ProjectId, hash: string, childHash: string, at: Date): Promise<void> {
    await this.db.run(
      `UPDATE refresh_tokens SET used_at = $3, child_hash = $4
        WHERE project_id = $1 AND hash = $2 AND used_at IS NULL`,
      [projectId, hash, at, childHash],
    );
  }

  async deleteProject(projectId: ProjectId): Promise<void> {
    // Tokens first, in one transaction with the families: no token outlives its family.
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM refresh_tokens WHERE project_id = $1`, [projectId]);
      await tx.query(`DELETE FROM session_families WHERE project_id = $1`, [projectId]);
    });
  }

  async deleteUser(projectId: ProjectId, userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM refresh_tokens WHERE project_id = $1 AND user_id = $2`, [
        projectId,
        userId,
      ]);
      await tx.query(`DELETE FROM session_families WHERE project_id = $1 AND user_id = $2`, [
        projectId,
        userId,
      ]);
    });
  }

  /**
   * Janitor, across projects: expired tokens, then families past their absolute end or revoked
   * before `revokedCutoff` (reuse of their tokens no longer matters), at most `limit` rows.
   */
  async purgeExpired(cutoff: Date, limit: number, revokedCutoff: Date = cutoff): Promise<number> {
    const tokens = await this.db.run(
      `DELETE FROM refresh_tokens WHERE hash IN (
         SELECT hash FROM refresh_tokens WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit],
    );
    const left = limit - tokens.rowCount;
    if (left <= 0) return tokens.rowCount;
    const families = await this.db.run(
      `DELETE FROM session_families f
        USING (SELECT project_id, id FROM session_families WHERE expires_at < $1
               UNION
               SELECT project_id, id FROM session_families WHERE revoked_at < $2
               LIMIT $3) x
        WHERE f.project_id = x.project_id AND f.id = x.id`,
      [cutoff, revokedCutoff, left],
    );
    return tokens.rowCount + families.rowCount;
  }
}
