import { trustedProjectId, type EventEnvelope, type ProjectId, type TimeKeyset } from '@baas/common';
import { appendOutbox, prepared, withTransaction, type Pool } from '@baas/common/postgres';
import type { FileRecord, FileRepository, FileStatus } from '../ports';

interface FileRow {
  project_id: string;
  path: string;
  status: FileStatus;
  content_type: string;
  original_name: string;
  size: string;
  reserved: string;
  created_at: Date;
  missing_since: Date | null;
}

const COLUMNS =
  'project_id, path, status, content_type, original_name, size, reserved, created_at, missing_since';

function toRecord(r: FileRow): FileRecord {
  return {
    path: r.path,
    projectId: trustedProjectId(r.project_id),
    status: r.status,
    contentType: r.content_type,
    originalName: r.original_name,
    // bigint arrives as a string; sizes stay far below 2^53.
    size: Number(r.size),
    reserved: Number(r.reserved),
    createdAt: r.created_at,
    ...(r.missing_since ? { missingSince: r.missing_since } : {}),
  };
}

/**
 * File metadata in the `files` table. A state change that has an event (pending -> complete,
 * complete -> gone) is one transaction with its outbox row, and row locks make the conditional
 * transitions exact across replicas: of two concurrent deletes, the second finds nothing. The
 * statements of every upload and download are prepared (parsed and planned once per connection);
 * they name their columns, so a migration that adds one does not make them stale.
 */
export class PostgresFileRepository implements FileRepository {
  /** `afterCommit` asks the outbox relay to publish now rather than at its next pass. */
  constructor(
    private readonly pool: Pool,
    private readonly afterCommit: () => void = () => undefined,
  ) {}

  async insertPending(rec: FileRecord): Promise<void> {
    await this.pool.query(
      prepared(
        `INSERT INTO files (project_id, path, status, content_type, original_name, size, reserved, created_at)
         VALUES ($1, $2, 'pending', $3, $4, 0, 0, $5)`,
        [rec.projectId, rec.path, rec.contentType, rec.originalName, rec.createdAt],
      ),
    );
  }

  async addReserved(projectId: ProjectId, path: string, bytes: number): Promise<void> {
    await this.pool.query(
      prepared(
        'UPDATE files SET reserved = reserved + $3, updated_at = now() WHERE project_id = $1 AND path = $2',
        [projectId, path, bytes],
      ),
    );
  }

  async complete(
    projectId: ProjectId,
    path: string,
    size: number,
    events: EventEnvelope[],
  ): Promise<boolean> {
    const done = await withTransaction(this.pool, async (tx) => {
      const r = await tx.query(
        prepared(
          `UPDATE files SET status = 'complete', size = $3, reserved = 0, updated_at = now()
           WHERE project_id = $1 AND path = $2 AND status = 'pending'`,
          [projectId, path, size],
        ),
      );
      if (r.rowCount !== 1) return false;
      await appendOutbox(tx, events);
      return true;
    });
    if (done) this.afterCommit();
    return done;
  }

  async remove(projectId: ProjectId, path: string): Promise<void> {
    await this.pool.query('DELETE FROM files WHERE project_id = $1 AND path = $2', [projectId, path]);
  }

  async findComplete(projectId: ProjectId, path: string): Promise<FileRecord | null> {
    const { rows } = await this.pool.query<FileRow>(
      prepared(`SELECT ${COLUMNS} FROM files WHERE project_id = $1 AND path = $2 AND status = 'complete'`, [
        projectId,
        path,
      ]),
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async listComplete(
    projectId: ProjectId,
    page: { limit: number; before?: TimeKeyset },
  ): Promise<FileRecord[]> {
    const { rows } = await this.pool.query<FileRow>(
      `SELECT ${COLUMNS} FROM files
       WHERE project_id = $1 AND status = 'complete'
         AND ($2::timestamptz IS NULL OR (created_at, path) < ($2::timestamptz, $3::text))
       ORDER BY created_at DESC, path DESC LIMIT $4`,
      [projectId, page.before?.at ?? null, page.before?.id ?? '', page.limit],
    );
    return rows.map(toRecord);
  }

  async deleteComplete(
    projectId: ProjectId,
    path: string,
    events: EventEnvelope[],
  ): Promise<FileRecord | null> {
    const deleted = await withTransaction(this.pool, async (tx) => {
      // A concurrent delete holds the row lock; once it commits, this DELETE finds no row.
      const { rows } = await tx.query<FileRow>(
        `DELETE FROM files WHERE project_id = $1 AND path = $2 AND status = 'complete' RETURNING ${COLUMNS}`,
        [projectId, path],
      );
      if (!rows[0]) return null;
      await appendOutbox(tx, events);
      return toRecord(rows[0]);
    });
    if (deleted) this.afterCommit();
    return deleted;
  }

  async exists(projectId: ProjectId, path: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM files WHERE project_id = $1 AND path = $2', [
      projectId,
      path,
    ]);
    return rowCount === 1;
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<number> {
    const r = await this.pool.query('DELETE FROM files WHERE project_id = $1', [projectId]);
    return r.rowCount ?? 0;
  }

  // The two janitor scans below run across projects by design (a maintenance sweep); each
  // record they return carries its project, and every follow-up call is scoped by it.

  async stalePending(olderThan: Date, limit: number): Promise<FileRecord[]> {
    const { rows } = await this.pool.query<FileRow>(
      `SELECT ${COLUMNS} FROM files WHERE status = 'pending' AND created_at < $1
       ORDER BY created_at LIMIT $2`,
      [olderThan, limit],
    );
    return rows.map(toRecord);
  }

  async unverified(olderThan: Date, limit: number): Promise<FileRecord[]> {
    const { rows } = await this.pool.query<FileRow>(
      `SELECT ${COLUMNS} FROM files
       WHERE status = 'complete' AND created_at < $1 AND (verified_at IS NULL OR verified_at < $1)
       ORDER BY created_at LIMIT $2`,
      [olderThan, limit],
    );
    return rows.map(toRecord);
  }

  async markVerified(projectId: ProjectId, path: string, at: Date): Promise<void> {
    await this.pool.query(
      'UPDATE files SET verified_at = $3, missing_since = NULL WHERE project_id = $1 AND path = $2',
      [projectId, path, at],
    );
  }

  async markMissing(projectId: ProjectId, path: string, at: Date): Promise<void> {
    await this.pool.query(
      `UPDATE files SET verified_at = $3, missing_since = COALESCE(missing_since, $3)
       WHERE project_id = $1 AND path = $2`,
      [projectId, path, at],
    );
  }
}
