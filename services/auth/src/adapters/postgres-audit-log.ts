import { trustedProjectId, type AuditAction, type AuditActor, type AuditTarget } from '@baas/common';
import type { Pool } from '@baas/common/postgres';
import type { AuditLog } from '../ports';
import { run } from './postgres-database';
import type { AuditEntry, AuditQuery } from '../domain/audit/audit-entry';

interface Row {
  id: string;
  project_id: string | null;
  at: Date;
  action: AuditAction;
  actor: AuditActor;
  target_type: AuditTarget['type'];
  target_id: string;
  request_id: string | null;
  client_ip: string | null;
  details: Record<string, unknown> | null;
}

function toEntry(r: Row): AuditEntry {
  return {
    id: r.id,
    projectId: r.project_id === null ? null : trustedProjectId(r.project_id),
    at: r.at,
    action: r.action,
    actor: r.actor,
    target: { type: r.target_type, id: r.target_id },
    requestId: r.request_id,
    clientIp: r.client_ip,
    details: r.details,
  };
}

/**
 * `INSERT INTO audit_log ... VALUES (...)` with its ten parameters numbered from `first`, for
 * `auditParams`: also written by a statement that records something else (a sign-in's session).
 */
export function auditInsert(first: number): string {
  const values = Array.from({ length: 10 }, (_, i) => `$${first + i}`).join(', ');
  return `INSERT INTO audit_log (id, project_id, at, action, actor, target_type, target_id, request_id, client_ip, details)
       VALUES (${values})`;
}

export function auditParams(e: AuditEntry): unknown[] {
  return [
    e.id,
    e.projectId,
    e.at,
    e.action,
    JSON.stringify(e.actor),
    e.target.type,
    e.target.id,
    e.requestId,
    e.clientIp,
    e.details === null ? null : JSON.stringify(e.details),
  ];
}

const APPEND = `${auditInsert(1)} ON CONFLICT (id) DO NOTHING`;

/** The audit log in the auth database's `audit_log` table (migration 0005). */
export class PgAuditLog implements AuditLog {
  constructor(private readonly pool: Pool) {}

  async append(e: AuditEntry): Promise<void> {
    await run(this.pool, APPEND, auditParams(e));
  }

  async purgeBefore(cutoff: Date, limit: number): Promise<number> {
    // oldest first along audit_log_at, a batch at a time
    const { rowCount } = await this.pool.query(
      `DELETE FROM audit_log WHERE id IN (
         SELECT id FROM audit_log WHERE at < $1 ORDER BY at, id LIMIT $2
       )`,
      [cutoff, limit],
    );
    return rowCount ?? 0;
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const bind = (v: unknown): string => `$${params.push(v)}`;
    if (q.projectId) where.push(`project_id = ${bind(q.projectId)}`);
    if (q.action) where.push(`action = ${bind(q.action)}`);
    if (q.before) where.push(`(at, id) < (${bind(q.before.at)}, ${bind(q.before.id)})`);
    const { rows } = await this.pool.query<Row>(
      `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY at DESC, id DESC LIMIT ${bind(q.limit)}`,
      params,
    );
    return rows.map(toEntry);
  }
}
