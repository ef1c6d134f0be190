import { fieldJson, type Params } from './sql';
import type { Accumulator, PipelinePlan, SortPlan } from './pipeline-plan';

/**
 * The statement for a {@link PipelinePlan}. Its rows: `unsafe` (some input document holds an
 * object or array where the plan needs a scalar: the caller must not use the rest), then either
 * documents (`present` marks a real row of the LEFT JOIN) or the group's columns `k`, `a0`...,
 * or `n` for a `$count`.
 *
 * Orders are MongoDB's: types first (null and missing < numbers < strings < booleans, by
 * `doc_type_rank`), numbers by value, strings by code point (`COLLATE "C"`, byte order of UTF-8,
 * as MongoDB's binary comparison), then the order the in-process path reads (created_at, id) or,
 * for groups, the order in which each group first appeared in it, so that ties come out exactly
 * as the in-process engine's stable sort leaves them.
 */
export function pipelineSql(
  plan: PipelinePlan,
  where: (params: Params) => string,
  params: Params,
  maxRows: number,
): string {
  const notScalars = plan.scalarPaths.map((p) => notScalar(p, params)).join(' OR ');
  const ctes: string[] = [];
  let unsafe: string;
  let main: string;
  if (plan.group) {
    // One scan: the groups, each knowing whether one of its documents is unsafe.
    ctes.push(`g AS MATERIALIZED (${groupSql(plan, where(params), notScalars || 'false', params)})`);
    unsafe = 'SELECT COALESCE(bool_or(g.bad), false) AS unsafe FROM g';
    main = `SELECT true AS present, g.* FROM g ORDER BY ${groupOrderSql(plan)}`;
  } else {
    unsafe = `SELECT ${
      notScalars ? `EXISTS (SELECT 1 FROM documents WHERE ${where(params)} AND (${notScalars}))` : 'false'
    } AS unsafe`;
    main = documentsSql(plan, where(params), params);
  }
  // Materialized: the planner would otherwise evaluate the check twice (select list and join).
  ctes.push(`s AS MATERIALIZED (${unsafe})`);
  main += window(plan, params, plan.count === undefined ? maxRows + 1 : undefined);
  if (plan.count !== undefined) main = `SELECT count(*)::float8 AS n FROM (${main}) q`;
  return `WITH ${ctes.join(', ')} SELECT s.unsafe, r.* FROM s LEFT JOIN LATERAL (${main}) r ON NOT s.unsafe`;
}

/** LIMIT/OFFSET of the plan, the limit no larger than `cap` (the read bound, plus one to detect it). */
function window(plan: PipelinePlan, params: Params, cap: number | undefined): string {
  const limit = plan.limit === undefined ? cap : cap === undefined ? plan.limit : Math.min(plan.limit, cap);
  let sql = '';
  if (limit !== undefined) sql += ` LIMIT ${params.add(limit)}`;
  if (plan.skip > 0) sql += ` OFFSET ${params.add(plan.skip)}`;
  return sql;
}

/** An object or array at the path, or an array on the way to it (MongoDB would look into it). */
function notScalar(path: string, params: Params): string {
  const parts = path.split('.');
  const checks = parts.map((_, i) => {
    const v = fieldJson(parts.slice(0, i + 1).join('.'), params);
    return i < parts.length - 1
      ? `jsonb_typeof(${v}) = 'array'`
      : `jsonb_typeof(${v}) IN ('object', 'array')`;
  });
  return checks.join(' OR ');
}

const DOCUMENT_COLUMNS = 'id, body, is_deleted, deleted_at, created_at, updated_at';

/** A scalar jsonb value (or SQL NULL for missing) in MongoDB's order. */
function typedOrder(v: string, direction: 1 | -1): string[] {
  const dir = direction === 1 ? 'ASC' : 'DESC';
  return [
    `doc_type_rank(${v}) ${dir}`,
    `(CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END) ${dir}`,
    `(CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END) COLLATE "C" ${dir}`,
    `(CASE WHEN jsonb_typeof(${v}) = 'boolean' THEN (${v})::boolean END) ${dir}`,
  ];
}

/** Managed fields are columns of one type each; null (deletedAt of a live document) sorts first. */
const COLUMN_ORDER: Record<string, string> = {
  _id: 'id COLLATE "C"',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  deletedAt: 'deleted_at',
  isDeleted: 'is_deleted',
};

function documentOrder(s: SortPlan, params: Params): string[] {
  if (s.on !== 'field') throw new Error('a document sort names fields');
  const column = Object.hasOwn(COLUMN_ORDER, s.field) ? COLUMN_ORDER[s.field] : undefined;
  if (column) return [`${column} ${s.direction === 1 ? 'ASC NULLS FIRST' : 'DESC NULLS LAST'}`];
  return typedOrder(fieldJson(s.field, params), s.direction);
}

function documentsSql(plan: PipelinePlan, where: string, params: Params): string {
  const order = [...plan.sort.flatMap((s) => documentOrder(s, params)), 'created_at', 'id'];
  return `SELECT true AS present, ${DOCUMENT_COLUMNS} FROM documents WHERE ${where} ORDER BY ${order.join(', ')}`;
}

/** A number of the field, or NULL: `$sum` and `$avg` ignore every other type (and arrays). */
function numberOf(field: string, params: Params): string {
  const v = fieldJson(field, params);
  return `CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END`;
}

function accumulatorSql(a: Accumulator, params: Params): string {
  switch (a.op) {
    case 'count':
      return `(count(*) * ${params.add(a.times)}::numeric)::float8`;
    case 'sum':
      return `COALESCE(sum(${numberOf(a.field, params)}), 0)::float8`;
    case 'avg':
      return `avg(${numberOf(a.field, params)})::float8`;
    case 'min':
    case 'max':
      return extremum(a.op, a.field, params);
  }
}

/**
 * MongoDB's `$min`/`$max` over scalars: null and missing are skipped (null when nothing is
 * left), and across types numbers < strings < booleans, so the smallest is the least number if
 * any, else the least string, else false if any; the largest the other way round.
 */
function extremum(op: 'min' | 'max', field: string, params: Params): string {
  const v = fieldJson(field, params);
  const num = `CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END`;
  const str = `(CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END) COLLATE "C"`;
  const bool = `CASE WHEN jsonb_typeof(${v}) = 'boolean' THEN (${v})::boolean END`;
  const parts =
    op === 'min'
      ? [`to_jsonb(min(${num}))`, `to_jsonb(min(${str}))`, `to_jsonb(bool_and(${bool}))`]
      : [`to_jsonb(bool_or(${bool}))`, `to_jsonb(max(${str}))`, `to_jsonb(max(${num}))`];
  return `COALESCE(${parts.join(', ')})`;
}

function groupOrder(s: SortPlan, accumulators: Accumulator[]): string[] {
  const dir = s.direction === 1 ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
  switch (s.on) {
    case 'key':
      return typedOrder('g.k', s.direction);
    case 'accumulator': {
      const op = accumulators[s.index]?.op;
      // $min/$max: a scalar jsonb of any type; the others: numbers, or null (an $avg of no
      // numbers), which sorts before every number
      return op === 'min' || op === 'max'
        ? typedOrder(`g.a${s.index}`, s.direction)
        : [`g.a${s.index} ${dir}`];
    }
    case 'field':
      throw new Error('a group sort names its key or accumulators');
  }
}

/**
 * The groups: key `k`, accumulators `a0`..., `bad` (one of the group's documents is unsafe) and
 * `first_seen`, where the group's first document comes in the read order (created_at, id): the
 * least of that pair, as text that sorts the same way (UTC time to the microsecond, then the id;
 * computed per row, it costs far less than numbering the rows in order, which sorts them all).
 */
function groupSql(plan: PipelinePlan, where: string, notScalars: string, params: Params): string {
  const group = plan.group;
  if (!group) throw new Error('not a group plan');
  // Missing and null are one group (null); jsonb equality makes 1 and 1.0 one group.
  const key =
    group.key === null ? `'null'::jsonb` : `COALESCE(${fieldJson(group.key, params)}, 'null'::jsonb)`;
  const columns = [
    `${key} AS k`,
    ...group.accumulators.map((a, i) => `${accumulatorSql(a, params)} AS a${i}`),
    `bool_or(${notScalars}) AS bad`,
  ];
  // Keys are distinct, so an order that starts with the key needs no tie-break.
  if (plan.sort[0]?.on !== 'key')
    columns.push(
      `min(to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS') || id COLLATE "C") AS first_seen`,
    );
  // No input, no group (MongoDB gives no row for `_id: null` over nothing).
  const grouping = group.key === null ? 'HAVING count(*) > 0' : 'GROUP BY 1';
  return `SELECT ${columns.join(', ')} FROM documents WHERE ${where} ${grouping}`;
}

function groupOrderSql(plan: PipelinePlan): string {
  const group = plan.group;
  if (!group) throw new Error('not a group plan');
  const order = plan.sort.flatMap((s) => groupOrder(s, group.accumulators));
  return [...order, ...(plan.sort[0]?.on === 'key' ? [] : ['g.first_seen'])].join(', ');
}
