import { timeKeysetPage, type AdminPage } from '@baas/common';
import type { AuditLog } from '../../ports';
import { auditEntryView, type AuditEntryView, type AuditQuery } from './audit-entry';

export type AuditPage = AdminPage<AuditEntryView>;

/** One page of the log, newest first; `nextCursor` is null on the last page. */
export async function listAuditEntries(
  log: AuditLog,
  query: AuditQuery & { cursor: string },
): Promise<AuditPage> {
  // One more than asked tells whether another page exists without a count.
  const rows = await log.list({ ...query, limit: query.limit + 1 });
  return timeKeysetPage(rows, query, (e) => ({ at: e.at, id: e.id }), auditEntryView);
}
