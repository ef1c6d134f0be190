import type { ProjectId } from '@baas/common';
import { prepared, type Pool } from '@baas/common/postgres';
import type { QuotaLedger, SweepCursor } from '../ports';

/**
 * One `storage_usage` row per project. A reservation is a single upsert whose update is
 * conditional on the new total staying within the limit: PostgreSQL locks the row and checks
 * the condition against the latest committed value, so reservations from any number of
 * replicas never overshoot (no in-process lock needed).
 */
export class PostgresQuotaLedger implements QuotaLedger {
  constructor(private readonly pool: Pool) {}

  async reserve(projectId: ProjectId, bytes: number, limit: number): Promise<boolean> {
    if (bytes > limit) return false;
    const { rowCount } = await this.pool.query(
      prepared(
        `INSERT INTO storage_usage AS u (project_id, used) VALUES ($1, $2)
         ON CONFLICT (project_id) DO UPDATE SET used = u.used + EXCLUDED.used
         WHERE u.used + EXCLUDED.used <= $3
         RETURNING used`,
        [projectId, bytes, limit],
      ),
    );
    return rowCount === 1;
  }

  async release(projectId: ProjectId, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    // Clamped: a release racing a project purge must not leave a negative balance behind.
    await this.pool.query(
      prepared('UPDATE storage_usage SET used = GREATEST(used - $2, 0) WHERE project_id = $1', [
        projectId,
        bytes,
      ]),
    );
  }

  async used(projectId: ProjectId): Promise<number> {
    const { rows } = await this.pool.query<{ used: string }>(
      'SELECT used FROM storage_usage WHERE project_id = $1',
      [projectId],
    );
    return rows[0] ? Number(rows[0].used) : 0;
  }

  async drop(projectId: ProjectId): Promise<void> {
    await this.pool.query('DELETE FROM storage_usage WHERE project_id = $1', [projectId]);
  }
}

/** The orphan scan's position: one row of `sweep_state` (janitor state, not tenant data). */
export class PostgresSweepCursor implements SweepCursor {
  constructor(
    private readonly pool: Pool,
    private readonly name = 'orphans',
  ) {}

  async get(): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ after: string | null }>(
      'SELECT after FROM sweep_state WHERE name = $1',
      [this.name],
    );
    return rows[0]?.after ?? undefined;
  }

  async set(after: string | undefined): Promise<void> {
    await this.pool.query(
      `INSERT INTO sweep_state (name, after) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET after = EXCLUDED.after`,
      [this.name, after ?? null],
    );
  }
}
