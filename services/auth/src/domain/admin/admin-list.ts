import { z } from 'zod';
import { errors } from '@baas/common';

/** The admin lists' page size: 20 unless asked, a positive integer clamped to 100 (as the audit log). */
export const ADMIN_LIST_LIMIT_DEFAULT = 20;
export const ADMIN_LIST_LIMIT_MAX = 100;

const limitParam = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
  .optional()
  .describe('Page size: a positive integer, 20 when absent, clamped to 100.');

const cursorParam = z
  .string()
  .max(200)
  .optional()
  .describe('`nextCursor` of the previous page; empty or absent starts at the newest item.');

/** `?limit=&cursor=` of `GET /api/admin/projects`. */
export const projectListQuery = z.object({ limit: limitParam, cursor: cursorParam }).strict();

/** `?limit=&cursor=&search=` of `GET /api/admin/projects/:projectId/users`. */
export const userListQuery = z
  .object({
    limit: limitParam,
    cursor: cursorParam,
    search: z
      .string()
      .max(254)
      .optional()
      .describe('Only users whose email contains this text (case-insensitive; a prefix matches too).'),
  })
  .strict();

/** A page of an admin list, newest first; `nextCursor` is null on the last page. */
export interface AdminPage<T> {
  items: T[];
  cursor: string;
  nextCursor: string | null;
  limit: number;
}

export interface PageRequest {
  limit: number;
  cursor: string;
  /** The id of the last item of the previous page (items are ordered by id, newest first). */
  before?: string;
}

/**
 * The admin lists page by keyset on the 24-hex id, descending: ids begin with their creation
 * second, so newest first to the second (the primary key serves the order on both stores).
 */
export function pageRequest(q: { limit?: string; cursor?: string }): PageRequest {
  const limit =
    q.limit === undefined ? ADMIN_LIST_LIMIT_DEFAULT : Math.min(Number(q.limit), ADMIN_LIST_LIMIT_MAX);
  const cursor = q.cursor ?? '';
  if (cursor === '') return { limit, cursor };
  const before = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[a-f0-9]{24}$/.test(before))
    throw errors.validation('Invalid query parameter', [
      { path: 'cursor', message: 'is not a cursor this endpoint returned' },
    ]);
  return { limit, cursor, before };
}

/** Builds the page from `limit + 1` rows (the extra one says whether another page exists). */
export function toPage<R extends { id: string }, T>(
  rows: R[],
  req: PageRequest,
  view: (row: R) => T,
): AdminPage<T> {
  const page = rows.slice(0, req.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(view),
    cursor: req.cursor,
    nextCursor: rows.length > req.limit && last ? Buffer.from(last.id, 'utf8').toString('base64url') : null,
    limit: req.limit,
  };
}
