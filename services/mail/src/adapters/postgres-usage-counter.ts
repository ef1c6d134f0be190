import type { ProjectId } from '@baas/common';
import { prepared, type Pool } from '@baas/common/postgres';
import type { UsageCounter, UsageSlot } from '../ports';

/**
 * One counter row per (project, bucket). Taking a unit is a single upsert whose update only
 * applies while `used < limit`; PostgreSQL locks the row and re-checks the condition against the
 * latest committed count, so no number of concurrent requests on any number of replicas can take
 * more than `limit` units. The slot a caller holds is the count its increment produced; a release
 * gives one unit back (the slot number itself is not needed to do that, unlike the MongoDB slot
 * documents, which exist because FerretDB cannot isolate a conditional increment). The statements
 * of a send are prepared (parsed and planned once per connection, as the other services' are).
 */
export class PostgresUsageCounter implements UsageCounter {
  constructor(private readonly pool: Pool) {}

  async tryIncrement(projectId: ProjectId, bucket: string, limit: number): Promise<UsageSlot | null> {
    if (limit <= 0) return null;
    const { rows } = await this.pool.query<{ used: number }>(
      prepared(
        `INSERT INTO usage_counters AS c (project_id, bucket, used, last_claimed_at) VALUES ($1, $2, 1, now())
         ON CONFLICT (project_id, bucket) DO UPDATE SET used = c.used + 1, last_claimed_at = now()
         WHERE c.used < $3
         RETURNING used`,
        [projectId, bucket, limit],
      ),
    );
    const used = rows[0]?.used;
    return used === undefined ? null : { slot: used, count: used };
  }

  async release(projectId: ProjectId, bucket: string, _slot: number): Promise<void> {
    await this.pool.query(
      prepared(
        'UPDATE usage_counters SET used = used - 1 WHERE project_id = $1 AND bucket = $2 AND used > 0',
        [projectId, bucket],
      ),
    );
  }

  async current(projectId: ProjectId, bucket: string): Promise<number> {
    const { rows } = await this.pool.query<{ used: number }>(
      prepared('SELECT used FROM usage_counters WHERE project_id = $1 AND bucket = $2', [projectId, bucket]),
    );
    return rows[0]?.used ?? 0;
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<void> {
    await this.pool.query('DELETE FROM usage_counters WHERE project_id = $1', [projectId]);
  }

  /**
   * Retention across projects (a maintenance sweep): a bucket whose last unit was taken before
   * `before` is over (a month bucket 62 days after its last claim), so its row goes.
   */
  async deleteClaimedBefore(bucketPrefix: string, before: Date): Promise<number> {
    const r = await this.pool.query(
      'DELETE FROM usage_counters WHERE starts_with(bucket, $1) AND last_claimed_at < $2',
      [bucketPrefix, before],
    );
    return r.rowCount ?? 0;
  }
}
