import { createHash } from 'node:crypto';
import { errors } from '@baas/common';
import { isDocumentId } from './document-id';
import type { Condition, Keyset, SortKey } from './query';

/** Cursors carry sort values, so they can be long; anything beyond this is not ours. */
export const CURSOR_MAX_LENGTH = 8192;

/**
 * What a cursor is bound to: the collection, the sort and the whole filter (client conditions,
 * trash rule, RLS scope). A cursor used with anything else is refused, never silently wrong.
 */
export function cursorBinding(collection: string, sort: SortKey[], where: Condition): string {
  return createHash('sha256')
    .update(JSON.stringify([collection, sort, where]))
    .digest('base64url')
    .slice(0, 16);
}

function encodeValue(v: unknown): unknown {
  if (v instanceof Date) return { $d: v.getTime() };
  return v === undefined ? null : v;
}

function decodeValue(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && '$d' in v) {
    const t = v.$d;
    if (typeof t !== 'number' || !Number.isSafeInteger(t)) throw new Error('date');
    return new Date(t);
  }
  return v;
}

/** An opaque position: base64url of the last item's sort values, its id and the binding. */
export function encodeCursor(position: Keyset, binding: string): string {
  return Buffer.from(
    JSON.stringify({ v: position.values.map(encodeValue), i: position.id, b: binding }),
  ).toString('base64url');
}

function invalidCursor() {
  return errors.badRequest('INVALID_CURSOR', 'Invalid cursor');
}

export interface DecodedCursor {
  position: Keyset;
  binding: string;
}

export function decodeCursor(raw: string): DecodedCursor {
  try {
    if (raw.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('shape');
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as {
      v?: unknown;
      i?: unknown;
      b?: unknown;
    };
    if (!Array.isArray(v.v) || !isDocumentId(v.i) || typeof v.b !== 'string') throw new Error('fields');
    return { position: { values: v.v.map(decodeValue), id: v.i }, binding: v.b };
  } catch {
    throw invalidCursor();
  }
}

/** The position a cursor names, after checking it belongs to this very list. */
export function positionFor(cursor: DecodedCursor, binding: string, sort: SortKey[]): Keyset {
  // The values cover every sort field but the trailing _id, which the id carries.
  if (cursor.binding !== binding || cursor.position.values.length !== sort.length - 1)
    throw errors.badRequest('CURSOR_MISMATCH', 'The cursor belongs to another collection, sort or filter');
  return cursor.position;
}
