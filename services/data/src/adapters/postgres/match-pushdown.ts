import type { Stage } from '../../domain/aggregation/validate-pipeline';
import type { Condition, Value } from '../../domain/documents/query';

/**
 * The part of a pipeline's leading `$match` that SQL can apply while reading, so an aggregation
 * reads the matching documents instead of the whole collection. Only what has the same meaning
 * in SQL and in MongoDB is taken; the rest is left out, which can only widen what is read. The
 * `$match` stays in the pipeline, so the in-process evaluation still decides exactly.
 */
export function pushableMatch(pipeline: Stage[]): Condition | undefined {
  const first = pipeline[0];
  if (!first || !('$match' in first)) return undefined;
  const c = filterCondition(first.$match);
  return c && !(c.op === 'and' && c.conditions.length === 0) ? c : undefined;
}

/** Plain paths only; a numeric segment (an array index in MongoDB) is left to the evaluation. */
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const COMPARISONS = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' } as const;

function isScalar(v: unknown): v is Exclude<Value, Date> {
  return (
    v === null ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    (typeof v === 'number' && Number.isFinite(v))
  );
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A filter document as an AND of what can be translated; undefined when nothing can. */
function filterCondition(filter: unknown): Condition | undefined {
  if (!isPlainObject(filter)) return undefined;
  const parts: Condition[] = [];
  for (const [key, spec] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(spec)) {
      for (const sub of spec) {
        const c = filterCondition(sub);
        if (c) parts.push(c);
      }
    } else if (key === '$or' && Array.isArray(spec) && spec.length > 0) {
      // Every branch must translate exactly, or the OR cannot be narrowed at all.
      const branches = spec.map((b) => exactCondition(b));
      if (branches.every((b): b is Condition => b !== undefined))
        parts.push({ op: 'or', conditions: branches });
    } else if (FIELD.test(key)) {
      parts.push(...fieldConditions(key, spec));
    }
  }
  return { op: 'and', conditions: parts };
}

/** A filter translated whole, or undefined when any part of it cannot be. */
function exactCondition(filter: unknown): Condition | undefined {
  if (!isPlainObject(filter)) return undefined;
  const parts: Condition[] = [];
  for (const [key, spec] of Object.entries(filter)) {
    if (!FIELD.test(key)) return undefined;
    const c = fieldConditions(key, spec);
    if (c.length === 0 || (isPlainObject(spec) && c.length !== Object.keys(spec).length)) return undefined;
    parts.push(...c);
  }
  return parts.length > 0 ? { op: 'and', conditions: parts } : undefined;
}

function fieldConditions(field: string, spec: unknown): Condition[] {
  if (isScalar(spec)) return [{ op: 'eq', field, value: spec }];
  if (!isPlainObject(spec)) return [];
  const out: Condition[] = [];
  for (const [op, v] of Object.entries(spec)) {
    if (op === '$eq' && isScalar(v)) out.push({ op: 'eq', field, value: v });
    else if (op === '$ne' && isScalar(v)) out.push({ op: 'ne', field, value: v });
    else if (op in COMPARISONS && isScalar(v) && v !== null)
      out.push({ op: COMPARISONS[op as keyof typeof COMPARISONS], field, value: v });
    else if ((op === '$in' || op === '$nin') && Array.isArray(v) && v.length <= 1000 && v.every(isScalar))
      out.push({ op: op === '$in' ? 'in' : 'nin', field, values: v });
  }
  return out;
}

/**
 * A `$match` filter translated whole and exactly, for a pipeline whose following stages run in SQL
 * (the `$match` then leaves the in-process pipeline), or undefined when any part of it cannot be.
 * Narrower than the widening pushdown above: `usable` rejects fields whose stored form differs
 * from MongoDB's (Date-typed schema fields are ISO strings in jsonb), null is compared on plain
 * top-level fields only (`{'a.b': null}` also matches an array element without `b` in MongoDB),
 * order comparisons take numbers and strings only, and of the managed fields only `_id`.
 */
export function exactMatch(filter: unknown, usable: (field: string) => boolean): Condition | undefined {
  if (!isPlainObject(filter)) return undefined;
  const parts: Condition[] = [];
  for (const [key, spec] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(spec) || spec.length === 0) return undefined;
      const subs = spec.map((s) => exactMatch(s, usable));
      if (!subs.every((s): s is Condition => s !== undefined)) return undefined;
      parts.push({ op: key === '$and' ? 'and' : 'or', conditions: subs });
      continue;
    }
    if (!FIELD.test(key) || !usable(key)) return undefined;
    const conditions = exactFieldConditions(key, spec);
    if (!conditions) return undefined;
    parts.push(...conditions);
  }
  return { op: 'and', conditions: parts };
}

const MANAGED = new Set(['isDeleted', 'deletedAt', 'createdAt', 'updatedAt']);

function exactFieldConditions(field: string, spec: unknown): Condition[] | undefined {
  if (MANAGED.has(field)) return undefined;
  const nullOk = !field.includes('.');
  const value = (v: unknown): v is Exclude<Value, Date> => isScalar(v) && (v !== null || nullOk);
  if (!isPlainObject(spec)) return value(spec) ? fieldConditions(field, spec) : undefined;
  const ops = Object.entries(spec);
  if (ops.length === 0) return undefined;
  for (const [op, v] of ops) {
    if (op === '$eq' || op === '$ne') {
      if (!value(v)) return undefined;
    } else if (op in COMPARISONS) {
      // `_id` is a text column, ordered by the database's collation: equality only.
      if (field === '_id') return undefined;
      if (typeof v !== 'string' && (typeof v !== 'number' || !Number.isFinite(v))) return undefined;
    } else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(v) || v.length > 1000 || !v.every(value)) return undefined;
    } else return undefined;
  }
  const out = fieldConditions(field, spec);
  return out.length === ops.length ? out : undefined;
}
