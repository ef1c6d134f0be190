import type { ProjectId } from '@baas/common';
import type { CodeClaims } from '../ports';
import type { PgAuthDatabase } from './postgres-database';

/**
 * Attempts and use of one-time codes, one row per code. Each is a single conditional upsert:
 * PostgreSQL locks the row and re-checks the condition against its latest version, so parallel
 * guesses, from any number of replicas, never take more than `max` attempts, and exactly one
 * caller uses a code.
 */
export class PgCodeClaims implements CodeClaims {
  constructor(private readonly db: PgAuthDatabase) {}

  async reserveAttempt(projectId: ProjectId, codeId: string, max: number, expiresAt: Date): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `INSERT INTO code_claims (project_id, code_id, attempts, expires_at) VALUES ($1, $2, 1, $4)
       ON CONFLICT (project_id, code_id) DO UPDATE SET attempts = code_claims.attempts + 1
        WHERE code_claims.attempts < $3`,
      [projectId, codeId, max, expiresAt],
    );
    return rowCount === 1;
  }

  async exhausted(projectId: ProjectId, codeId: string, max: number): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `SELECT 1 FROM code_claims WHERE project_id = $1 AND code_id = $2 AND attempts >= $3`,
      [projectId, codeId, max],
    );
    return rowCount === 1;
  }

  async claimUse(projectId: ProjectId, codeId: string, expiresAt: Date): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `INSERT INTO code_claims (project_id, code_id, used, expires_at) VALUES ($1, $2, true, $3)
       ON CONFLICT (project_id, code_id) DO UPDATE SET used = true WHERE NOT code_claims.used`,
      [projectId, codeId, expiresAt],
    );
    return rowCount === 1;
  }

  async deleteProject(projectId: ProjectId): Promise<void> {
    await this.db.run(`DELETE FROM code_claims WHERE project_id = $1`, [projectId]);
  }

  /** Janitor, across projects. */
  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      `DELETE FROM code_claims c
        USING (SELECT project_id, code_id FROM code_claims
                WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) x
        WHERE c.project_id = x.project_id AND c.code_id = x.code_id`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
