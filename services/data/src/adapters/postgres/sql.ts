import { errors } from '@baas/common';
import type { Condition, Keyset, SortKey, Value } from '../../domain/documents/query';
import { refuseUnportableRegex } from '../../domain/documents/list-query';

/**
 * Translates the domain's query language to SQL over the `documents` table: system fields are
 * columns, the user's fields are jsonb paths in `body`. Values never enter the SQL text except as
 * JSON literals inside a jsonpath bind parameter (quoted by JSON.stringify, which jsonpath's string
 * syntax shares), so a condition is indexable by the GIN index and still safe.
 *
 * MongoDB's semantics are the reference: jsonpath in lax mode looks into arrays along the path
 * and at the leaf (an equality matches an array element), and compares only values of one type
 * (`gt 5` never matches "6"), as MongoDB's type brackets do.
 */
const COLUMNS: Record<string, { column: string; kind: 'text' | 'bool' | 'time' }> = {
  _id: { column: 'id', kind: 'text' },
  isDeleted: { column: 'is_deleted', kind: 'bool' },
  deletedAt: { column: 'deleted_at', kind: 'time' },
  createdAt: { column: 'created_at', kind: 'time' },
  updatedAt: { column: 'updated_at', kind: 'time' },
};
/** Own keys only: a field named `toString` or `valueOf` is a body field, not a column. */
const columnOf = (field: string) => (Object.hasOwn(COLUMNS, field) ? COLUMNS[field] : undefined);

/**
 * Whether a read is the newest-first list (the trash flag, a `createdAt` range, a keyset over
 * `createdAt` and `_id`): one index (`documents_by_created`) both filters and orders it whatever
 * the values, so it may keep one generic plan per connection. Anything else is planned with its
 * values: a jsonpath condition's selectivity comes from the value, and with an id or another
 * column in the condition, a generic plan's estimates tie between indexes and may pick the one
 * that scans the collection (seen: a lookup by id through `documents_by_created`).
 */
export function newestFirstList(where: Condition, sort: readonly SortKey[]): boolean {
  const only = (c: Condition): boolean =>
    'conditions' in c ? c.conditions.every(only) : c.field === 'isDeleted' || c.field === 'createdAt';
  return only(where) && isNewestFirst(sort);
}

/** The default order: newest first (`documents_by_created`, and a declared index's entries). */
export const isNewestFirst = (sort: readonly SortKey[]) =>
  sort.length === 2 &&
  sort[0]?.field === 'createdAt' &&
  sort[0].direction === -1 &&
  sort[1]?.field === '_id' &&
  sort[1].direction === -1;

export class Params {
  readonly values: unknown[];
  constructor(initial: unknown[] = []) {
    this.values = [...initial];
  }
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

function segments(field: string): string[] {
  return field.split('.');
}

/**
 * `$."a"."b"`: a jsonpath to a field (names are validated upstream; quoting keeps them literal).
 * A numeric segment is an array index or an object key in MongoDB: `asIndex` reads it as an index.
 */
function jsonPath(field: string, asIndex = false): string {
  return `$${segments(field)
    .map((s) => (asIndex && /^\d+$/.test(s) ? `[${s}]` : `.${JSON.stringify(s)}`))
    .join('')}`;
}

/** A value as it is stored in jsonb: Dates as ISO strings (Date-typed schema fields). */
export function storedJson(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

function literal(v: Exclude<Value, null>): string {
  const s = storedJson(v);
  if (typeof s === 'number' && !Number.isFinite(s)) throw errors.validation('Numbers must be finite');
  return JSON.stringify(s);
}

/** `body #> '{a,b}'` as a parameter, so a path never enters the SQL text. */
export function fieldJson(field: string, params: Params): string {
  return `(body #> ${params.add(segments(field))}::text[])`;
}

function pathExists(field: string, filter: string | undefined, params: Params): string {
  const one = (asIndex: boolean) => {
    const path =
      filter === undefined ? jsonPath(field, asIndex) : `${jsonPath(field, asIndex)} ? (${filter})`;
    return `(body @? ${params.add(path)}::jsonpath)`;
  };
  // `items.0.sku`: the first element's sku, or the key "0" of an object.
  return /(^|\.)\d+(\.|$)/.test(field) ? `(${one(false)} OR ${one(true)})` : one(false);
}

/**
 * JavaScript regex syntax where POSIX ARE differs; what cannot be translated is refused (the
 * domain refuses it first, on every store).
 */
export function toPosixRegex(pattern: string): string {
  refuseUnportableRegex(pattern);
  // \b and \B are word boundaries in JavaScript; in ARE they are \y and \Y (\b is a backspace).
  return pattern.replace(/\\\\|\\b|\\B/g, (m) => (m === '\\b' ? '\\y' : m === '\\B' ? '\\Y' : m));
}

function isNullEq(field: string, params: Params): string {
  // MongoDB: `{ f: null }` matches a null value and a missing field.
  return `(NOT ${pathExists(field, undefined, params)} OR ${pathExists(field, '@ == null', params)})`;
}

function columnValue(kind: 'text' | 'bool' | 'time', v: Value): unknown {
  if (kind === 'time') return v instanceof Date ? v : typeof v === 'string' ? new Date(v) : v;
  return v;
}

/** A column compared with a value of another type matches nothing, as a type bracket would. */
function typeFits(kind: 'text' | 'bool' | 'time', v: Value): boolean {
  if (v === null) return true;
  if (kind === 'text') return typeof v === 'string';
  if (kind === 'bool') return typeof v === 'boolean';
  return v instanceof Date;
}

function columnCondition(c: Leaf, col: (typeof COLUMNS)[string], params: Params): string {
  const x = col.column;
  switch (c.op) {
    case 'eq':
      if (c.value === null) return `${x} IS NULL`;
      return typeFits(col.kind, c.value) ? `${x} = ${params.add(columnValue(col.kind, c.value))}` : 'false';
    case 'ne':
      if (c.value === null) return `${x} IS NOT NULL`;
      return typeFits(col.kind, c.value)
        ? `${x} IS DISTINCT FROM ${params.add(columnValue(col.kind, c.value))}`
        : 'true';
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (!typeFits(col.kind, c.value)) return 'false';
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[c.op];
      return `${x} ${op} ${params.add(columnValue(col.kind, c.value))}`;
    }
    case 'in':
    case 'nin': {
      const values = c.values
        .filter((v) => v !== null && typeFits(col.kind, v))
        .map((v) => columnValue(col.kind, v));
      const parts = [values.length > 0 ? `${x} = ANY(${params.add(values)})` : 'false'];
      if (c.values.includes(null)) parts.push(`${x} IS NULL`);
      const any = `(${parts.join(' OR ')})`;
      return c.op === 'in' ? any : `NOT COALESCE(${any}, false)`;
    }
    case 'regex':
      return col.kind === 'text' ? `${x} ~ ${params.add(toPosixRegex(c.pattern))}` : 'false';
  }
}

type Leaf = Exclude<Condition, { op: 'and' | 'or' }>;
type Branch = Extract<Condition, { op: 'and' | 'or' }>;

function isBranch(c: Condition): c is Branch {
  return c.op === 'and' || c.op === 'or';
}

export function conditionSql(cond: Condition, params: Params): string {
  if (isBranch(cond)) {
    if (cond.conditions.length === 0) return cond.op === 'and' ? 'true' : 'false';
    return `(${cond.conditions.map((x) => conditionSql(x, params)).join(cond.op === 'and' ? ' AND ' : ' OR ')})`;
  }
  const c: Leaf = cond;
  const col = columnOf(c.field);
  if (col) return columnCondition(c, col, params);
  switch (c.op) {
    case 'eq':
      return c.value === null
        ? isNullEq(c.field, params)
        : pathExists(c.field, `@ == ${literal(c.value)}`, params);
    case 'ne':
      return c.value === null
        ? `NOT ${isNullEq(c.field, params)}`
        : `NOT ${pathExists(c.field, `@ == ${literal(c.value)}`, params)}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[c.op];
      return pathExists(c.field, `@ ${op} ${literal(c.value)}`, params);
    }
    case 'in':
    case 'nin': {
      const values = c.values.filter((v): v is Exclude<Value, null> => v !== null);
      const parts: string[] = [];
      if (values.length > 0)
        parts.push(pathExists(c.field, values.map((v) => `@ == ${literal(v)}`).join(' || '), params));
      if (c.values.includes(null)) parts.push(isNullEq(c.field, params));
      const any = parts.length > 0 ? `(${parts.join(' OR ')})` : 'false';
      return c.op === 'in' ? any : `NOT ${any}`;
    }
    case 'regex':
      return pathExists(c.field, `@ like_regex ${JSON.stringify(toPosixRegex(c.pattern))}`, params);
  }
}

/** The expressions a sort key orders by: a column, or (type rank, value) for a jsonb field. */
function sortExpressions(field: string, params: Params): string[] {
  const col = columnOf(field);
  if (col) return [col.column];
  const v = fieldJson(field, params);
  return [`doc_type_rank(${v})`, `COALESCE(${v}, 'null'::jsonb)`];
}

function positionExpressions(field: string, value: unknown, params: Params): string[] {
  const col = columnOf(field);
  if (col) return [params.add(col.kind === 'time' && typeof value === 'string' ? new Date(value) : value)];
  const p = params.add(JSON.stringify(storedJson(value ?? null)));
  return [`doc_type_rank(${p}::jsonb)`, `${p}::jsonb`];
}

/**
 * ` LIMIT n` with the number written into the statement, not passed as a parameter. A list runs
 * on the pool of generic plans (`PgDocumentsContext.fixed`), and a generic plan cannot see a
 * parameter's value: it costs `LIMIT $n` as a tenth of the rows the filter is estimated to match,
 * which, after an ANALYZE that changed that estimate, made the newest 20 of a project's 10,000
 * documents an Append of every one of them and a sort (5.8 ms) instead of a Merge Append of the
 * partitions' (created_at, id) indexes that stops after 20 (0.2 ms); list-20 fell from 2,226 to
 * 375 req/s. Page sizes are at most LIMIT_MAX (100), so at most that many statements per shape.
 */
export function limitSql(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`a LIMIT is a whole number, not ${n}`);
  return ` LIMIT ${n}`;
}

export function orderBySql(sort: SortKey[], params: Params): string {
  return sort
    .flatMap((k) => sortExpressions(k.field, params).map((e) => `${e} ${k.direction === 1 ? 'ASC' : 'DESC'}`))
    .join(', ');
}

/**
 * Rows strictly after a keyset position. One direction: one row comparison, which the default
 * order's index serves as a range. Mixed directions: the expanded form
 * (k1 > v1) OR (k1 = v1 AND k2 > v2) ... Missing values are JSON null (never SQL NULL), so no
 * row is lost to a NULL comparison.
 */
export function keysetSql(sort: SortKey[], position: Keyset, params: Params): string {
  const values = [...position.values, position.id];
  const keys = sort.map((k, i) => ({
    dir: k.direction,
    left: sortExpressions(k.field, params),
    right: positionExpressions(k.field, values[i], params),
  }));
  const first = keys[0];
  if (first && keys.every((k) => k.dir === first.dir)) {
    const op = first.dir === 1 ? '>' : '<';
    return `(${keys.flatMap((k) => k.left).join(', ')}) ${op} (${keys.flatMap((k) => k.right).join(', ')})`;
  }
  const branches = keys.map((k, i) => {
    const equal = keys.slice(0, i).map((e) => `(${e.left.join(', ')}) = (${e.right.join(', ')})`);
    const after = `(${k.left.join(', ')}) ${k.dir === 1 ? '>' : '<'} (${k.right.join(', ')})`;
    return `(${[...equal, after].join(' AND ')})`;
  });
  return `(${branches.join(' OR ')})`;
}
