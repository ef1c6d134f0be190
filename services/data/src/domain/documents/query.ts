import type { DocumentId } from './document-id';

/**
 * The data domain's own query language: what a list, a read or a guarded write asks of a store.
 * Adapters translate it (MongoDB filters, SQL over jsonb); nothing here knows a database.
 *
 * Field paths are dotted and validated before they get here. The system fields `_id`,
 * `isDeleted`, `deletedAt`, `createdAt` and `updatedAt` are always present on stored documents.
 * Comparisons follow MongoDB's query semantics on every store: an equality also matches an array
 * containing the value, `gt`/`lt` compare only values of the same type, `ne` and `nin` also match
 * a missing field, and `eq` with null matches null or missing.
 */
export type Value = string | number | boolean | Date | null;

export type Condition =
  | { op: 'eq' | 'ne'; field: string; value: Value }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; field: string; value: Exclude<Value, null> }
  | { op: 'in' | 'nin'; field: string; values: Value[] }
  | { op: 'regex'; field: string; pattern: string }
  | { op: 'and' | 'or'; conditions: Condition[] };

export const MATCH_ALL: Condition = { op: 'and', conditions: [] };

/** ANDs conditions, flattening nested ANDs (a client condition can only narrow the server's). */
export function and(...conditions: Condition[]): Condition {
  const flat: Condition[] = [];
  for (const c of conditions) {
    if (c.op === 'and') flat.push(...c.conditions);
    else flat.push(c);
  }
  return flat.length === 1 ? (flat[0] as Condition) : { op: 'and', conditions: flat };
}

export function eq(field: string, value: Value): Condition {
  return { op: 'eq', field, value };
}

export function isMatchAll(c: Condition): boolean {
  return c.op === 'and' && c.conditions.length === 0;
}

export interface SortKey {
  field: string;
  direction: 1 | -1;
}

/**
 * A position in a sort order: the last returned document's values of the sort fields (in
 * order; `null` for a missing field) and its id. Keyset pagination continues strictly after it,
 * ordering values as MongoDB does (missing = null < numbers < strings < objects < arrays <
 * booleans < dates).
 */
export interface Keyset {
  /** JSON values as stored (any type, arrays and objects included) or Dates. */
  values: unknown[];
  id: DocumentId;
}

export interface DocumentQuery {
  where: Condition;
  /** Always ends with `_id`, so the order is total. */
  sort: SortKey[];
  after?: Keyset;
  skip?: number;
  limit?: number;
}
