import type { Stage } from '../../domain/aggregation/validate-pipeline';
import type { Condition } from '../../domain/documents/query';
import { exactMatch } from './match-pushdown';

/**
 * Which leading part of an aggregation pipeline PostgreSQL answers exactly, as MongoDB would:
 *
 *   $match* → [ $group | $sort ] → [ $sort (of the group's output) ] → ($skip | $limit)* → [ $count ]
 *
 * Every `$match` must translate whole (see exactMatch). `$group` takes `_id` null or one field
 * path and the accumulators `$sum` (of a number: a count; of a field: its numbers, others
 * ignored), `$avg` (of a field's numbers; null when none), `$count`, and `$min`/`$max` (null and
 * missing skipped, then numbers < strings < booleans). A `$sort` takes fields
 * (or, after a `$group`, `_id` and accumulator names) in MongoDB's order of types. Group keys and
 * sorted fields must hold scalars: the statement checks that no document of the input has an
 * object or array there (nor an array on the way to it), and the adapter falls back to reading the
 * documents when one does, since MongoDB compares those element-wise. The first stage that does
 * not fit ends the translated part; it and everything after it run in process on the rows SQL
 * produced.
 */
export interface PipelinePlan {
  /** The exact conditions of the leading `$match` stages. */
  where: Condition[];
  group?: GroupPlan;
  /** Sort of the documents (no group) or of the groups' rows. */
  sort: SortPlan[];
  skip: number;
  limit?: number;
  /** `$count`: the name of its field. */
  count?: string;
  /** Body paths whose values must be scalars in every input document for the translation to be exact. */
  scalarPaths: string[];
  /** What stays for the in-process engine. */
  rest: Stage[];
}

export interface GroupPlan {
  /** The grouping field path, or null for one group of everything. */
  key: string | null;
  accumulators: Accumulator[];
}

export type Accumulator =
  | { name: string; op: 'count'; times: number }
  | { name: string; op: 'sum' | 'avg'; field: string }
  | { name: string; op: 'min' | 'max'; field: string };

/** A document field (body path or managed column), or a column of the group's rows. */
export type SortPlan =
  | { on: 'field'; field: string; direction: 1 | -1 }
  | { on: 'key'; direction: 1 | -1 }
  | { on: 'accumulator'; index: number; direction: 1 | -1 };

/** Plain paths, as the `$match` pushdown takes them (no array index, no `$`). */
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** Managed fields that are columns: sortable documents fields, never group keys or summed fields. */
export const SORT_COLUMNS = new Set(['_id', 'createdAt', 'updatedAt', 'deletedAt', 'isDeleted']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function only(stage: Stage | undefined): [string, unknown] | undefined {
  if (!stage) return undefined;
  const entries = Object.entries(stage);
  return entries.length === 1 ? entries[0] : undefined;
}

function outputName(n: string): boolean {
  return n !== '' && n !== '_id' && n !== '__proto__' && !n.startsWith('$') && !n.includes('.');
}

function fieldRef(v: unknown, usable: (f: string) => boolean): string | undefined {
  if (typeof v !== 'string' || !v.startsWith('$') || v.startsWith('$$')) return undefined;
  const f = v.slice(1);
  return FIELD.test(f) && !SORT_COLUMNS.has(f.split('.')[0] as string) && usable(f) ? f : undefined;
}

/**
 * Summed fields need no check: a Date (an ISO string in jsonb) is not a number on either side.
 * `$min`/`$max` compare across types, so their field must be usable and (checked by the
 * statement) hold scalars.
 */
function accumulator(name: string, spec: unknown, usable: (f: string) => boolean): Accumulator | undefined {
  const op = only(isPlainObject(spec) ? spec : undefined);
  if (!op || !outputName(name)) return undefined;
  const [operator, arg] = op;
  if (operator === '$count')
    return isPlainObject(arg) && Object.keys(arg).length === 0 ? { name, op: 'count', times: 1 } : undefined;
  if (operator === '$sum' && typeof arg === 'number' && Number.isFinite(arg))
    return { name, op: 'count', times: arg };
  if (operator === '$min' || operator === '$max') {
    const field = fieldRef(arg, usable);
    return field ? { name, op: operator === '$min' ? 'min' : 'max', field } : undefined;
  }
  if (operator === '$sum' || operator === '$avg') {
    const field = fieldRef(arg, () => true);
    return field ? { name, op: operator === '$sum' ? 'sum' : 'avg', field } : undefined;
  }
  return undefined;
}

function groupPlan(spec: unknown, usable: (f: string) => boolean): GroupPlan | undefined {
  if (!isPlainObject(spec) || !('_id' in spec)) return undefined;
  const id = spec._id;
  const key = id === null ? null : fieldRef(id, usable);
  if (key === undefined) return undefined;
  const accumulators: Accumulator[] = [];
  for (const [name, acc] of Object.entries(spec)) {
    if (name === '_id') continue;
    const a = accumulator(name, acc, usable);
    if (!a) return undefined;
    accumulators.push(a);
  }
  return { key, accumulators };
}

function sortEntries(spec: unknown): [string, 1 | -1][] | undefined {
  if (!isPlainObject(spec) || Object.keys(spec).length === 0) return undefined;
  const out: [string, 1 | -1][] = [];
  for (const [f, d] of Object.entries(spec)) {
    if (d !== 1 && d !== -1) return undefined;
    out.push([f, d]);
  }
  return out;
}

function documentSort(spec: unknown, usable: (f: string) => boolean): SortPlan[] | undefined {
  const entries = sortEntries(spec);
  if (!entries) return undefined;
  const out: SortPlan[] = [];
  for (const [field, direction] of entries) {
    const column = SORT_COLUMNS.has(field);
    if (!column && (!FIELD.test(field) || SORT_COLUMNS.has(field.split('.')[0] as string) || !usable(field)))
      return undefined;
    out.push({ on: 'field', field, direction });
  }
  return out;
}

function groupSort(spec: unknown, group: GroupPlan): SortPlan[] | undefined {
  const entries = sortEntries(spec);
  if (!entries) return undefined;
  const out: SortPlan[] = [];
  for (const [field, direction] of entries) {
    if (field === '_id') out.push({ on: 'key', direction });
    else {
      const index = group.accumulators.findIndex((a) => a.name === field);
      if (index < 0) return undefined;
      out.push({ on: 'accumulator', index, direction });
    }
  }
  return out;
}

const nonNegativeInteger = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The translated prefix of a pipeline, or undefined when no stage past the leading `$match` fits. */
export function planPipeline(
  pipeline: Stage[],
  usable: (field: string) => boolean,
): PipelinePlan | undefined {
  const plan: PipelinePlan = { where: [], sort: [], skip: 0, scalarPaths: [], rest: [] };
  let i = 0;
  for (; i < pipeline.length; i++) {
    const stage = only(pipeline[i]);
    if (!stage || stage[0] !== '$match') break;
    const c = exactMatch(stage[1], usable);
    if (!c) return undefined;
    plan.where.push(c);
  }
  const matches = i;
  let stage = only(pipeline[i]);
  if (stage?.[0] === '$group') {
    const group = groupPlan(stage[1], usable);
    if (group) {
      plan.group = group;
      if (group.key !== null) plan.scalarPaths.push(group.key);
      for (const a of group.accumulators)
        if (a.op === 'min' || a.op === 'max') plan.scalarPaths.push(a.field);
      stage = only(pipeline[++i]);
      if (stage?.[0] === '$sort') {
        const sort = groupSort(stage[1], group);
        if (sort) {
          plan.sort = sort;
          stage = only(pipeline[++i]);
        }
      }
    }
  } else if (stage?.[0] === '$sort') {
    const sort = documentSort(stage[1], usable);
    if (sort) {
      plan.sort = sort;
      for (const s of sort)
        if (s.on === 'field' && !SORT_COLUMNS.has(s.field)) plan.scalarPaths.push(s.field);
      stage = only(pipeline[++i]);
    }
  }
  for (; stage && (stage[0] === '$skip' || stage[0] === '$limit'); stage = only(pipeline[++i])) {
    const n = stage[1];
    if (!nonNegativeInteger(n) || (stage[0] === '$limit' && n === 0)) break;
    if (stage[0] === '$skip') {
      plan.skip += n;
      if (plan.limit !== undefined) plan.limit = Math.max(plan.limit - n, 0);
    } else plan.limit = Math.min(plan.limit ?? n, n);
  }
  if (stage?.[0] === '$count' && typeof stage[1] === 'string' && outputName(stage[1])) {
    plan.count = stage[1];
    i++;
  }
  if (i === matches) return undefined;
  plan.rest = pipeline.slice(i);
  return plan;
}
