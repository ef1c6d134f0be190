import { z } from 'zod';
import { adminListLimit, adminListParams, adminPageOf, invalidCursor, type AdminPage } from '@baas/common';

/** `?limit=&cursor=` of `GET /api/admin/projects`. */
export const projectListQuery = z.object(adminListParams).strict();

/** `?limit=&cursor=&search=` of `GET /api/admin/projects/:projectId/users`. */
export const userListQuery = z
  .object({
    ...adminListParams,
    search: z
      .string()
      .max(254)
      .optional()
      .describe('Only users whose email contains this text (case-insensitive; a prefix matches too).'),
  })
  .strict();

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
  const limit = adminListLimit(q.limit);
  const cursor = q.cursor ?? '';
  if (cursor === '') return { limit, cursor };
  const before = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[a-f0-9]{24}$/.test(before)) throw invalidCursor();
  return { limit, cursor, before };
}

/** Builds the page from `limit + 1` rows (the extra one says whether another page exists). */
export function toPage<R extends { id: string }, T>(
  rows: R[],
  req: PageRequest,
  view: (row: R) => T,
): AdminPage<T> {
  return adminPageOf(rows, req, (last) => Buffer.from(last.id, 'utf8').toString('base64url'), view);
}
