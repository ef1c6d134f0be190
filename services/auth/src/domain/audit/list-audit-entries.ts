import type { AuditLog } from '../../ports';
import { auditEntryView, encodeAuditCursor, type AuditEntryView, type AuditQuery } from './audit-entry';

export interface AuditPage {
  items: AuditEntryView[];
  cursor: string;
  nextCursor: string | null;
  limit: number;
}

/** One page of the log, newest first; `nextCursor` is null on the last page. */
export async function listAuditEntries(
  log: AuditLog,
  query: AuditQuery & { cursor: string },
): Promise<AuditPage> {
  // One more than asked tells whether another page exists without a count.
  const rows = await log.list({ ...query, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(auditEntryView),
    cursor: query.cursor,
    nextCursor: rows.length > query.limit && last ? encodeAuditCursor({ at: last.at, id: last.id }) : null,
    limit: query.limit,
  };
}
