import type { EventEnvelope, ProjectId, TimeKeyset } from '@baas/common';
import { appendOutbox, withTransaction, type Pool } from '@baas/common/postgres';
import type { MessageRecord, MessageRepository, MessageStatus, StoredMessage } from '../ports';

interface MessageRow {
  id: string;
  recipient: string;
  template_key: string | null;
  system: boolean;
  provider: string;
  status: MessageStatus;
  attempts: number | null;
  error: string | null;
  caused_by: string | null;
  created_at: Date;
}

const COLUMNS =
  'id, recipient, template_key, system, provider, status, attempts, error, caused_by, created_at';

function toMessage(d: MessageRow): StoredMessage {
  return {
    id: d.id,
    to: d.recipient,
    system: d.system,
    provider: d.provider,
    status: d.status,
    createdAt: d.created_at,
    ...(d.template_key !== null ? { templateKey: d.template_key } : {}),
    ...(d.caused_by !== null ? { causedBy: d.caused_by } : {}),
    ...(d.attempts !== null ? { attempts: d.attempts } : {}),
    ...(d.error !== null ? { error: d.error } : {}),
  };
}

/**
 * Message records (metadata only: the body is not kept) in the `messages` table. The final
 * status and its mail.sent / mail.failed event are one transaction; `afterCommit` lets the
 * relay publish at once instead of at its next pass.
 */
export class PostgresMessageRepository implements MessageRepository {
  constructor(
    private readonly pool: Pool,
    private readonly afterCommit: () => void = () => undefined,
  ) {}

  async create(projectId: ProjectId, r: MessageRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO messages (project_id, id, recipient, template_key, system, provider, status, caused_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        projectId,
        r.id,
        r.to,
        r.templateKey ?? null,
        r.system,
        r.provider,
        r.status,
        r.causedBy ?? null,
        r.createdAt,
      ],
    );
  }

  /** The event is written only when the record was there to change (as on MongoDB). */
  private async finish(
    projectId: ProjectId,
    id: string,
    change: { status: MessageStatus; attempts: number; error: string | null },
    events: EventEnvelope[],
  ): Promise<void> {
    const written = await withTransaction(this.pool, async (tx) => {
      const r = await tx.query(
        `UPDATE messages SET status = $3, attempts = $4, error = $5, finished_at = now()
         WHERE project_id = $1 AND id = $2`,
        [projectId, id, change.status, change.attempts, change.error],
      );
      if (r.rowCount !== 1) return false;
      await appendOutbox(tx, events);
      return true;
    });
    if (written) this.afterCommit();
  }

  markSent(projectId: ProjectId, id: string, attempts: number, events: EventEnvelope[]): Promise<void> {
    return this.finish(projectId, id, { status: 'sent', attempts, error: null }, events);
  }

  markFailed(
    projectId: ProjectId,
    id: string,
    attempts: number,
    reason: string,
    events: EventEnvelope[],
  ): Promise<void> {
    return this.finish(projectId, id, { status: 'failed', attempts, error: reason }, events);
  }

  async findById(projectId: ProjectId, id: string): Promise<StoredMessage | null> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async list(projectId: ProjectId, page: { limit: number; before?: TimeKeyset }): Promise<StoredMessage[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages
       WHERE project_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [projectId, page.before?.at ?? null, page.before?.id ?? '', page.limit],
    );
    return rows.map(toMessage);
  }

  /** Pending events live in the outbox, apart from the records, so the records can go at once. */
  async deleteAllOfProject(projectId: ProjectId): Promise<void> {
    await this.pool.query('DELETE FROM messages WHERE project_id = $1', [projectId]);
  }
}
