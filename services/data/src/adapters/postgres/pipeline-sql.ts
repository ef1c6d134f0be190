import { fieldJson, type Params } from './sql';
import type { Accumulator, GroupPlan, PipelinePlan, SortPlan } from './pipeline-plan';

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
  const ctes: string[] = [];
  let unsafe: string;
  let main: string;
  if (plan.group) {
    // One scan: the groups, each knowing whether one of its documents is unsafe. The group key's
    // own value is the same in every document of its group, so whether it is an object or an
    // array is asked once per group, of `k`, rather than of every document (a second extraction
    // per row was a third of a `$group` over 10,000 documents); arrays on the way to it are not
    // in `k` and stay checked per document.
    const key = plan.group.key;
    const perRow = plan.scalarPaths
      .map((p) => (p === key ? arraysOnTheWay(p, params) : notScalar(p, params)))
      .filter((c) => c !== '');
    ctes.push(`g AS MATERIALIZED (${groupSql(plan, where(params), perRow.join(' OR '), params)})`);
    unsafe = `SELECT COALESCE(bool_or(g.bad OR jsonb_typeof(g.k) IN ('object', 'array')), false) AS unsafe FROM g`;
    const rows = groupRowsSql(plan, where, params);
    ctes.push(...rows.ctes);
    main = rows.main;
  } else {
    const notScalars = plan.scalarPaths.map((p) => notScalar(p, params)).join(' OR ');
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
  const v = fieldJson(path, params);
  const own = `jsonb_typeof(${v}) IN ('object', 'array')`;
  const before = arraysOnTheWay(path, params);
  return before ? `${before} OR ${own}` : own;
}

/** An array on the way to the path (`a` of `a.b.c`, then `a.b`); '' for a top-level field. */
function arraysOnTheWay(path: string, params: Params): string {
  const parts = path.split('.');
  return parts
    .slice(0, -1)
    .map((_, i) => `jsonb_typeof(${fieldJson(parts.slice(0, i + 1).join('.'), params)}) = 'array'`)
    .join(' OR ');
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
 * The groups: key `k`, accumulators `a0`..., `bad` (one of the group's documents fails `perRow`:
 * an array on the way to the key, or an object or array where another field must be scalar) and
 * `first_at`, the creation time of the group's first document in the read order (created_at, id).
 * Which id comes first among the documents of that instant is asked only when two groups start at
 * the same instant (see groupRowsSql): comparing timestamps per row costs little, where the pair
 * as sortable text (to_char, then the id) was half of a `$group` over 28,000 documents.
 */
function groupSql(plan: PipelinePlan, where: string, perRow: string, params: Params): string {
  const group = plan.group;
  if (!group) throw new Error('not a group plan');
  const columns = [
    `${groupKey(group, params)} AS k`,
    ...group.accumulators.map((a, i) => `${accumulatorSql(a, params)} AS a${i}`),
    perRow ? `bool_or(${perRow}) AS bad` : 'false AS bad',
  ];
  if (needsFirstSeen(plan)) columns.push('min(created_at) AS first_at');
  // No input, no group (MongoDB gives no row for `_id: null` over nothing).
  const grouping = group.key === null ? 'HAVING count(*) > 0' : 'GROUP BY 1';
  return `SELECT ${columns.join(', ')} FROM documents WHERE ${where} ${grouping}`;
}

/** Missing and null are one group (null); jsonb equality makes 1 and 1.0 one group. */
function groupKey(group: GroupPlan, params: Params): string {
  return group.key === null ? `'null'::jsonb` : `COALESCE(${fieldJson(group.key, params)}, 'null'::jsonb)`;
}

/** Keys are distinct, so an order that starts with the key needs no tie-break. */
function needsFirstSeen(plan: PipelinePlan): boolean {
  return plan.sort[0]?.on !== 'key';
}

/**
 * The groups' rows in the plan's order, then in the order each group first appeared: by `first_at`
 * and, for groups whose first documents share an instant (`ties`, counted over the groups), by the
 * least id among their documents of that instant (`first_id`), looked up for the tied groups only.
 * The lookup reads the documents of the tied instants once: a few where documents come through
 * the API one at a time (each gets its own creation time, to the millisecond), more where they
 * came in bursts or a bulk load gave many the same time: at most the collection once more, sorted.
 */
function groupRowsSql(
  plan: PipelinePlan,
  where: (params: Params) => string,
  params: Params,
): { ctes: string[]; main: string } {
  const group = plan.group;
  if (!group) throw new Error('not a group plan');
  const order = plan.sort.flatMap((s) => groupOrder(s, group.accumulators));
  if (!needsFirstSeen(plan))
    return { ctes: [], main: `SELECT true AS present, g.* FROM g ORDER BY ${order.join(', ')}` };
  const ctes = [
    'gt AS (SELECT g.*, count(*) OVER (PARTITION BY g.first_at) AS ties FROM g)',
    // Per key, the least id at its earliest instant among the documents of the tied groups' first
    // instants, read once (`created_at = ANY`, through the (created_at, id) index) and only when
    // some groups tie. Within that read a tied group's earliest instant is its first_at; an
    // untied group's first_id, if any, is never compared (no other group shares its first_at).
    // One read, no lookup per group: with a new tenant's rows not yet in the statistics (a large
    // partition is analysed rarely), a lookup per tied group took the primary key and read the
    // whole collection each time (10,000 documents loaded in bursts: 5-s timeouts).
    // documents' columns unqualified (as `where` writes them): gt has none of their names.
    `f AS MATERIALIZED (SELECT DISTINCT ON (1) ${groupKey(group, params)} AS k, id AS first_id` +
      ` FROM documents WHERE ${where(params)} AND EXISTS (SELECT 1 FROM gt WHERE gt.ties > 1)` +
      ` AND created_at = ANY (ARRAY(SELECT gt.first_at FROM gt WHERE gt.ties > 1))` +
      ` ORDER BY 1, created_at, id COLLATE "C")`,
  ];
  order.push('g.first_at', 'f.first_id COLLATE "C"');
  return {
    ctes,
    main: `SELECT true AS present, g.* FROM gt g LEFT JOIN f ON f.k = g.k ORDER BY ${order.join(', ')}`,
  };
}
