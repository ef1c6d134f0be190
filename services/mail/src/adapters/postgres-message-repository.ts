import type { EventEnvelope, ProjectId, TimeKeyset } from '@baas/common';
import { appendOutbox, prepared, withTransaction, type Pool } from '@baas/common/postgres';
import type { MessageOwner, MessageRecord, MessageRepository, MessageStatus, StoredMessage } from '../ports';

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

/**
 * The owner's rows: `project_id = $n` for a project, `project_id IS NULL` for the platform's
 * mails (both use the listing index). `$n` is always bound, so the parameter numbers stay put.
 */
const ownerIs = (n: number, owner: MessageOwner) =>
  owner === null ? `project_id IS NULL AND $${n}::text IS NULL` : `project_id = $${n}`;

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
 * relay publish at once instead of at its next pass. A send's statements and the status reads are
 * prepared (parsed and planned once per connection); they name their columns, so a migration that
 * adds one does not make them stale.
 */
export class PostgresMessageRepository implements MessageRepository {
  constructor(
    private readonly pool: Pool,
    private readonly afterCommit: () => void = () => undefined,
  ) {}

  async create(owner: MessageOwner, r: MessageRecord): Promise<void> {
    await this.pool.query(
      prepared(
        `INSERT INTO messages (project_id, id, recipient, template_key, system, provider, status, caused_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          owner,
          r.id,
          r.to,
          r.templateKey ?? null,
          r.system,
          r.provider,
          r.status,
          r.causedBy ?? null,
          r.createdAt,
        ],
      ),
    );
  }

  /** The event is written only when the record was there to change (as on MongoDB). */
  private async finish(
    owner: MessageOwner,
    id: string,
    change: { status: MessageStatus; attempts: number; error: string | null },
    events: EventEnvelope[],
  ): Promise<void> {
    const written = await withTransaction(this.pool, async (tx) => {
      const r = await tx.query(
        prepared(
          `UPDATE messages SET status = $3, attempts = $4, error = $5, finished_at = now()
           WHERE ${ownerIs(1, owner)} AND id = $2`,
          [owner, id, change.status, change.attempts, change.error],
        ),
      );
      if (r.rowCount !== 1) return false;
      await appendOutbox(tx, events);
      return true;
    });
    if (written) this.afterCommit();
  }

  markSent(owner: MessageOwner, id: string, attempts: number, events: EventEnvelope[]): Promise<void> {
    return this.finish(owner, id, { status: 'sent', attempts, error: null }, events);
  }

  markFailed(
    owner: MessageOwner,
    id: string,
    attempts: number,
    reason: string,
    events: EventEnvelope[],
  ): Promise<void> {
    return this.finish(owner, id, { status: 'failed', attempts, error: reason }, events);
  }

  async findById(owner: MessageOwner, id: string): Promise<StoredMessage | null> {
    const { rows } = await this.pool.query<MessageRow>(
      prepared(`SELECT ${COLUMNS} FROM messages WHERE ${ownerIs(1, owner)} AND id = $2`, [owner, id]),
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async list(owner: MessageOwner, page: { limit: number; before?: TimeKeyset }): Promise<StoredMessage[]> {
    const { rows } = await this.pool.query<MessageRow>(
      prepared(
        `SELECT ${COLUMNS} FROM messages
         WHERE ${ownerIs(1, owner)} AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
         ORDER BY created_at DESC, id DESC LIMIT $4`,
        [owner, page.before?.at ?? null, page.before?.id ?? '', page.limit],
      ),
    );
    return rows.map(toMessage);
  }

  /** Pending events live in the outbox, apart from the records, so the records can go at once. */
  async deleteAllOfProject(projectId: ProjectId): Promise<void> {
    await this.pool.query('DELETE FROM messages WHERE project_id = $1', [projectId]);
  }
}
