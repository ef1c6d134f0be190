import { z } from 'zod';
import { errors } from './errors';

/**
 * The admin API's lists (projects, users, the audit log, files, sent mail): newest first, by
 * cursor. `limit` is a positive integer, 20 when absent, clamped to 100; `cursor` is the previous
 * page's `nextCursor`, empty or absent for the first page; anything else is 400.
 */
export const ADMIN_LIST_LIMIT_DEFAULT = 20;
export const ADMIN_LIST_LIMIT_MAX = 100;

export const adminListParams = {
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .optional()
    .describe('Page size: a positive integer, 20 when absent, clamped to 100.'),
  cursor: z
    .string()
    .max(400)
    .optional()
    .describe('`nextCursor` of the previous page; empty or absent starts at the newest item.'),
};

/** `?limit=&cursor=` and nothing else. */
export const adminListQuery = z.object(adminListParams).strict();

/** A page of an admin list, newest first; `nextCursor` is null on the last page. */
export interface AdminPage<T> {
  items: T[];
  cursor: string;
  nextCursor: string | null;
  limit: number;
}

export function adminListLimit(raw: string | undefined): number {
  return raw === undefined ? ADMIN_LIST_LIMIT_DEFAULT : Math.min(Number(raw), ADMIN_LIST_LIMIT_MAX);
}

export function invalidCursor() {
  return errors.validation('Invalid query parameter', [
    { path: 'cursor', message: 'is not a cursor this endpoint returned' },
  ]);
}

/** Where a page ends in a list ordered newest first by (time, id): a total order. */
export interface TimeKeyset {
  at: Date;
  id: string;
}

export function encodeTimeKeyset(p: TimeKeyset): string {
  return Buffer.from(JSON.stringify([p.at.toISOString(), p.id]), 'utf8').toString('base64url');
}

/** The position a cursor names; 400 for anything `encodeTimeKeyset` did not make. */
export function decodeTimeKeyset(raw: string): TimeKeyset {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') {
      const at = new Date(v[0]);
      if (!Number.isNaN(at.getTime()) && v[1].length > 0 && v[1].length <= 200) return { at, id: v[1] };
    }
  } catch {
    /* answered below */
  }
  throw invalidCursor();
}

/** What a keyset list asks its store for: one more row than the page, after `before`. */
export interface TimeKeysetRequest {
  limit: number;
  cursor: string;
  before?: TimeKeyset;
}

export function timeKeysetRequest(q: { limit?: string | undefined; cursor?: string | undefined }) {
  const req: TimeKeysetRequest = { limit: adminListLimit(q.limit), cursor: q.cursor ?? '' };
  if (req.cursor !== '') req.before = decodeTimeKeyset(req.cursor);
  return req;
}

/**
 * The page from `limit + 1` rows (the extra one says whether another page exists without a
 * count); `cursorAt` makes the next page's cursor from the last row shown.
 */
export function adminPageOf<R, T>(
  rows: readonly R[],
  req: { limit: number; cursor: string },
  cursorAt: (row: R) => string,
  view: (row: R) => T,
): AdminPage<T> {
  const page = rows.slice(0, req.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(view),
    cursor: req.cursor,
    nextCursor: rows.length > req.limit && last !== undefined ? cursorAt(last) : null,
    limit: req.limit,
  };
}

/** `adminPageOf` for a list ordered by (time, id). */
export function timeKeysetPage<R, T>(
  rows: readonly R[],
  req: TimeKeysetRequest,
  position: (row: R) => TimeKeyset,
  view: (row: R) => T,
): AdminPage<T> {
  return adminPageOf(rows, req, (r) => encodeTimeKeyset(position(r)), view);
}
