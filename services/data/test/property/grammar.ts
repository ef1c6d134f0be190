import fc from 'fast-check';

/**
 * Generators for the property tests of the data service's query surface (issue 12, notes item
 * 53): list filters as query-string pairs and aggregation pipelines, both drawn from the grammar
 * the service accepts, and hostile variants of both. The unit tier checks parsing and validation
 * with them; the integration tier runs them as user A against a dataset holding canaries of user B
 * and of another project.
 *
 * Every run uses a fixed seed (FC_SEED overrides it to explore); fast-check prints the seed and
 * the counterexample's path on failure, so `FC_SEED=<seed>` replays it.
 */
export const PROPERTY_SEED = Number(process.env.FC_SEED ?? 20261112);

/** fast-check parameters for a property: the fixed seed, a run count, a readable report. */
export function propertyParams(numRuns: number): fc.Parameters<unknown> {
  return { seed: PROPERTY_SEED, numRuns, verbose: 1, endOnFailure: true };
}

/**
 * The dataset's collections and their fields (the integration tier registers them so): `notes`
 * is private RLS on `userId` with a schema, `tags` has no RLS and no schema.
 */
export const NOTES_SCHEMA = {
  fields: [
    { key: 'n', type: 'Number' },
    { key: 's', type: 'String' },
    { key: 'b', type: 'Boolean' },
    { key: 'at', type: 'Date' },
    { key: 'tags', type: 'Array', items: { type: 'String' } },
    { key: 'nested', type: 'Object', fields: [{ key: 'x', type: 'Number' }] },
    { key: 'userId', type: 'String' },
  ],
} as const;
export const COLLECTIONS = ['notes', 'tags'] as const;
/** The end users the generators name (the caller is userA; userB owns the canaries). */
export const USERS = ['userA', 'userB', 'userC'] as const;

// ------------------------------------------------------------------ list filters (query strings)

type FieldKind = 'Number' | 'String' | 'Boolean' | 'Date' | 'Id' | 'Loose';
const FILTER_FIELDS: Array<[string, FieldKind]> = [
  ['n', 'Number'],
  ['s', 'String'],
  ['b', 'Boolean'],
  ['at', 'Date'],
  ['tags', 'String'],
  ['nested.x', 'Number'],
  ['userId', 'String'],
  ['k', 'Loose'],
  ['missing', 'Loose'],
  ['deep.a.b.c', 'Loose'],
  ['_id', 'Id'],
  ['createdAt', 'Date'],
  ['updatedAt', 'Date'],
  ['isDeleted', 'Boolean'],
];

const word = fc.constantFrom('a', 'b', 'x', 'note', 'hello', 'A', 'Zed', '', ' ', 'ü', '1', 'true', 'null');
const numberText = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((d) => String(d)),
  fc.constantFrom('0', '-0', '1e3', '2.5', '.5', '1e308', '-1e308', '9007199254740993'),
);
const dateText = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const hexId = fc.stringMatching(/^[0-9a-f]{24}$/);

function valueFor(kind: FieldKind): fc.Arbitrary<string> {
  switch (kind) {
    case 'Number':
      return numberText;
    case 'String':
      return fc.oneof(word, fc.constantFrom(...USERS));
    case 'Boolean':
      return fc.constantFrom('true', 'false');
    case 'Date':
      return dateText;
    case 'Id':
      return hexId;
    case 'Loose':
      return fc.oneof(word, numberText, fc.constantFrom('true', 'false'));
  }
}

/** A small regex language: always compiles, never longer than the service's 100 characters. */
const safeRegex = fc
  .array(fc.constantFrom('a', 'b', 'x', '.', '.*', '^', '$', '\\d', '[a-z]', '(no|te)', 'user[AB]', 'A?'), {
    minLength: 1,
    maxLength: 8,
  })
  .map((parts) => parts.join(''));

const SUFFIXES = ['', '_gt', '_lt', '_ne', '_in', '_regex'] as const;

/** One field filter: `field[suffix]=value`, with a value the field's type accepts. */
const fieldFilter: fc.Arbitrary<[string, string]> = fc
  .tuple(fc.constantFrom(...FILTER_FIELDS), fc.constantFrom(...SUFFIXES))
  .chain(([[field, kind], suffix]) => {
    const key = `${field}${suffix}`;
    if (suffix === '_regex') return safeRegex.map((v): [string, string] => [key, v]);
    if (suffix === '_in')
      return fc
        .array(valueFor(kind), { minLength: 1, maxLength: 6 })
        .filter((vs) => vs.every((v) => !v.includes(',')))
        .map((vs): [string, string] => [key, vs.join(',')]);
    return valueFor(kind).map((v): [string, string] => [key, v]);
  });

const sortParam = fc
  .uniqueArray(fc.constantFrom('n', 's', 'at', 'nested.x', 'createdAt', 'userId', 'k', '_id'), {
    minLength: 1,
    maxLength: 5,
  })
  .chain((fields) =>
    fc
      .array(fc.boolean(), { minLength: fields.length, maxLength: fields.length })
      .map((desc) => fields.map((f, i) => (desc[i] ? `-${f}` : f)).join(',')),
  );

const reservedParam: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.integer({ min: 1, max: 5 }).map((p): [string, string] => ['page', String(p)]),
  fc.integer({ min: 1, max: 150 }).map((l): [string, string] => ['limit', String(l)]),
  sortParam.map((s): [string, string] => ['sort', s]),
  fc.constantFrom('true', 'false', '1', '0').map((v): [string, string] => ['include_deleted', v]),
);

/** A valid list query: up to 6 distinct field filters plus paging, sorting and trash options. */
export const validListQuery: fc.Arbitrary<Array<[string, string]>> = fc
  .tuple(
    fc.uniqueArray(fieldFilter, { maxLength: 6, selector: ([k]) => k }),
    fc.uniqueArray(reservedParam, { maxLength: 4, selector: ([k]) => k }),
  )
  .chain(([filters, reserved]) =>
    fc.shuffledSubarray([...filters, ...reserved], { minLength: filters.length + reserved.length }),
  );

/** Query keys that must never become a filter: operators, prototypes, internal fields, bad paths. */
export const hostileFilterKey = fc.oneof(
  fc.constantFrom(
    '$where',
    '$ne',
    '$or',
    'a[$ne]',
    'n[$gt]',
    '__proto__',
    '__proto__.polluted',
    'constructor',
    'constructor.prototype',
    'a.__proto__',
    'prototype',
    '_outbox',
    '_outbox.0.data',
    '_purgeAfterRelay',
    'a..b',
    '.a',
    'a.',
    'a.$gt',
    'a.b.c.d.e.f',
    'n\u0000',
    'n\u200b',
    'ｎ',
    '9n',
    '-n',
    'n-1',
    'a b',
    `${'x'.repeat(65)}`,
    `a.${'y'.repeat(65)}`,
    '',
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).map((s) => `$${s}`),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}\[[^\]]{1,8}\]$/),
);

/** Values a typed field or a paging parameter must refuse (400, never 500). */
export const hostileTypedParam: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['n', 'abc'],
    ['n', '1e400'],
    ['n', '-1e400'],
    ['n', '0x10'],
    ['n', 'NaN'],
    ['n', 'Infinity'],
    ['n_gt', ''],
    ['nested.x_lt', '1,2'],
    ['b', 'yes'],
    ['at', 'not a date'],
    ['_id', 'zz'],
    ['_id', '0123456789abcdef0123456'],
    ['s_regex', '('],
    ['s_regex', '[a-'],
    ['s_regex', 'a'.repeat(101)],
    ['page', '0'],
    ['page', '-1'],
    ['page', '99999999999999999999'],
    ['limit', '0'],
    ['limit', '1.5'],
    ['limit', '1e3'],
    ['limit', '99999999999999999999'],
    ['include_deleted', 'yes'],
    ['sort', 'a,b,c,d,e,f'],
    ['sort', 'n,n'],
    ['sort', '$where'],
    ['sort', '-__proto__'],
    ['sort', '_outbox'],
    ['cursor', 'not-a-cursor'],
  ),
  fc
    .integer({ min: 101, max: 300 })
    .map((k): [string, string] => ['n_in', Array.from({ length: k }, (_, i) => String(i)).join(',')]),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
    .filter((s) => !/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s))
    .map((s): [string, string] => ['n', s]),
);

// ------------------------------------------------------------------ aggregation pipelines

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const fieldPath = fc.constantFrom(
  '$n',
  '$s',
  '$b',
  '$at',
  '$tags',
  '$nested.x',
  '$userId',
  '$k',
  '$missing',
  '$_id',
);
const literal: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: -100, max: 100 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e308, -1e308, 0, 2 ** 53 + 1),
  word,
  fc.constantFrom(...USERS),
  fc.boolean(),
  fc.constant(null),
);

/** Aggregation expressions over the dataset's fields (depth-bounded). */
const expression: fc.Arbitrary<Json> = fc.letrec<{ e: Json }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fieldPath,
    literal.map((l): Json => ({ $literal: l })),
    fc.tuple(tie('e'), tie('e')).map(([a, b]): Json => ({ $ifNull: [a, b] })),
    fc
      .tuple(fieldPath, fc.integer({ min: -10, max: 10 }))
      .map(([f, n]): Json => ({ $add: [{ $ifNull: [f, 0] }, n] })),
    fc.tuple(tie('e'), tie('e')).map(([a, b]): Json => ({ $eq: [a, b] })),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]): Json => ({ $cond: [c, a, b] })),
    tie('e').map((a): Json => ({ $toString: a })),
    tie('e').map((a): Json => ({ $type: a })),
    fc.constant<Json>({ $size: { $ifNull: ['$tags', []] } }),
    fc.constant<Json>({ $objectToArray: '$$ROOT' }),
    fc.constant<Json>({ $concat: [{ $ifNull: ['$s', ''] }, '-', { $ifNull: ['$userId', ''] }] }),
  ),
})).e;

/** `$match` filters in MongoDB's query language (what RLS is ANDed with). */
const matchFilter: fc.Arbitrary<Json> = fc.letrec<{ m: Json }>((tie) => ({
  m: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Json>({}),
    fc
      .tuple(
        fc.constantFrom('n', 'nested.x', 'k'),
        fc.constantFrom('$gt', '$gte', '$lt', '$lte', '$ne'),
        fc.integer({ min: -5, max: 50 }),
      )
      .map(([f, op, v]): Json => ({ [f]: { [op]: v } })),
    fc.constantFrom(...USERS).map((u): Json => ({ userId: u })),
    fc.constantFrom(...USERS).map((u): Json => ({ userId: { $ne: u } })),
    fc
      .array(fc.constantFrom(...USERS), { minLength: 1, maxLength: 3 })
      .map((us): Json => ({ userId: { $in: us } })),
    fc.constantFrom('s', 'userId').map((f): Json => ({ [f]: { $exists: true } })),
    fc.constant<Json>({ s: { $regex: '^.' } }),
    fc.constant<Json>({ tags: 'x' }),
    fc.constant<Json>({ isDeleted: true }),
    fc.constant<Json>({ isDeleted: { $in: [true, false] } }),
    fc.tuple(tie('m'), tie('m')).map(([a, b]): Json => ({ $or: [a, b] })),
    fc.tuple(tie('m'), tie('m')).map(([a, b]): Json => ({ $and: [a, b] })),
    tie('m').map((a): Json => ({ $nor: [a] })),
    expression.map((e): Json => ({ $expr: e })),
  ),
})).m;

const projectionFields = fc.uniqueArray(
  fc.constantFrom('n', 's', 'b', 'at', 'tags', 'nested', 'userId', 'k', '_id'),
  {
    minLength: 1,
    maxLength: 4,
  },
);
const collection = fc.constantFrom(...COLLECTIONS);

/** Stages that keep a document's identity: they can only narrow, reorder or reshape rows. */
const narrowingStage: fc.Arbitrary<Json> = fc.oneof(
  matchFilter.map((m): Json => ({ $match: m })),
  projectionFields.map((fs): Json => ({ $project: Object.fromEntries(fs.map((f) => [f, 1])) })),
  fc
    .tuple(fc.constantFrom('e1', 'e2', 'userId', 'n', 'owner'), expression)
    .map(([k, e]): Json => ({ $addFields: { [k]: e } })),
  fc.tuple(fc.constantFrom('e1', 'userId', 'k'), expression).map(([k, e]): Json => ({ $set: { [k]: e } })),
  fc.constantFrom('s', 'tags', 'userId').map((f): Json => ({ $unset: f })),
  fc
    .tuple(fc.constantFrom('n', 's', 'at', 'userId', '_id'), fc.constantFrom(1, -1))
    .map(([f, d]): Json => ({ $sort: { [f]: d } })),
  fc.integer({ min: 0, max: 5 }).map((n): Json => ({ $skip: n })),
  fc.integer({ min: 1, max: 2000 }).map((n): Json => ({ $limit: n })),
  fc.constant<Json>({ $replaceWith: { $mergeObjects: [{ extra: 1 }, '$$ROOT'] } }),
  fc.constant<Json>({ $redact: '$$KEEP' }),
);

/** Stages that count or aggregate: one output row whose number must stay within A's documents. */
const countingTail = fc.oneof(
  fc.constant<Json>({ $count: 'n' }),
  fc.constant<Json>({ $group: { _id: null, n: { $sum: 1 } } }),
);

const subPipeline: fc.Arbitrary<Json[]> = fc.array(narrowingStage, { maxLength: 3 });

/** Stages that join, fan out or summarize (rows may multiply; canaries must still never appear). */
const joiningStage: fc.Arbitrary<Json> = fc.oneof(
  fc
    .tuple(collection, fc.constantFrom('k', 'userId', 'n'))
    .map(([from, f]): Json => ({ $lookup: { from, localField: f, foreignField: f, as: 'joined' } })),
  fc.tuple(collection, subPipeline).map(([from, p]): Json => ({
    $lookup: {
      from,
      let: { kk: '$k' },
      pipeline: [{ $match: { $expr: { $eq: ['$k', '$$kk'] } } }, ...p],
      as: 'joined',
    },
  })),
  fc.tuple(collection, subPipeline).map(([from, p]): Json => ({ $lookup: { from, pipeline: p, as: 'all' } })),
  collection.map((c): Json => ({ $unionWith: c })),
  fc.tuple(collection, subPipeline).map(([coll, p]): Json => ({ $unionWith: { coll, pipeline: p } })),
  collection.map((from): Json => ({
    $graphLookup: {
      from,
      startWith: '$k',
      connectFromField: 'k',
      connectToField: 'k',
      as: 'graph',
      maxDepth: 2,
    },
  })),
  fc.tuple(subPipeline, subPipeline).map(([a, b]): Json => ({ $facet: { a, b: [...b, { $count: 'n' }] } })),
  fc.constant<Json>({ $unwind: { path: '$tags', preserveNullAndEmptyArrays: true } }),
  fc
    .constantFrom('$userId', '$s', '$k', '$n')
    .map((g): Json => ({ $group: { _id: g, n: { $sum: 1 }, all: { $push: '$$ROOT' } } })),
  fc.constantFrom('$userId', '$s', '$k').map((g): Json => ({ $sortByCount: g })),
  fc.constant<Json>({ $bucket: { groupBy: '$n', boundaries: [-1000, 0, 10, 1000], default: 'other' } }),
  fc.constant<Json>({ $bucketAuto: { groupBy: '$k', buckets: 2 } }),
  fc.integer({ min: 1, max: 50 }).map((size): Json => ({ $sample: { size } })),
  fc.constant<Json>({ $replaceRoot: { newRoot: { doc: '$$ROOT' } } }),
  fc.constant<Json>({ $setWindowFields: { sortBy: { k: 1 }, output: { total: { $sum: 1 } } } }),
);

export interface GeneratedPipeline {
  collection: (typeof COLLECTIONS)[number];
  pipeline: Json[];
  /** True when the pipeline ends in a count of the collection's own (RLS-visible) rows. */
  counts: boolean;
}

/** A narrowing pipeline that ends in a count: the count is bounded by what A can see. */
export const countingPipeline: fc.Arbitrary<GeneratedPipeline> = fc
  .tuple(fc.array(narrowingStage, { maxLength: 5 }), countingTail)
  .map(([stages, tail]) => ({
    collection: 'notes' as const,
    pipeline: [...stages.filter((s) => !('$limit' in (s as object) || '$skip' in (s as object))), tail],
    counts: true,
  }));

/** Stages of a pipeline with those of its sub-pipelines, as the validator counts them. */
export function countStages(pipeline: Json[]): number {
  let n = 0;
  for (const stage of pipeline) {
    n++;
    const [name, spec] = Object.entries(stage as Record<string, any>)[0] ?? [];
    if (name === '$facet')
      for (const sub of Object.values(spec as Record<string, Json[]>)) n += countStages(sub);
    else if ((name === '$lookup' || name === '$unionWith') && Array.isArray(spec?.pipeline))
      n += countStages(spec.pipeline as Json[]);
  }
  return n;
}

/** The validator's bound on stages, sub-pipelines included (validate-pipeline.ts). */
const MAX_STAGES = 20;

/**
 * Any pipeline of the grammar: narrowing and joining stages mixed, 1 to 8 of them, cut after the
 * last stage that keeps it within MAX_STAGES (longer ones are the validator's refusals).
 */
export const anyPipeline: fc.Arbitrary<GeneratedPipeline> = fc
  .tuple(
    collection,
    fc.array(fc.oneof({ weight: 2, arbitrary: narrowingStage }, { weight: 3, arbitrary: joiningStage }), {
      minLength: 1,
      maxLength: 8,
    }),
  )
  .map(([c, stages]) => {
    const pipeline = stages.slice(0, 1);
    for (const stage of stages.slice(1)) {
      if (countStages([...pipeline, stage]) > MAX_STAGES) break;
      pipeline.push(stage);
    }
    return { collection: c, pipeline, counts: false };
  });

/** Fragments no pipeline may carry, at any depth: writes, server JavaScript, internals, escapes. */
export const HOSTILE_FRAGMENTS: Array<{ what: string; value: () => Json }> = [
  { what: '$where', value: () => ({ $where: 'sleep(100) || true' }) },
  { what: '$function', value: () => ({ $function: { body: 'function(){return 1}', args: [], lang: 'js' } }) },
  {
    what: '$accumulator',
    value: () => ({
      $accumulator: {
        init: 'function(){}',
        accumulate: 'function(){}',
        accumulateArgs: [],
        merge: 'function(){}',
        lang: 'js',
      },
    }),
  },
  { what: '$out', value: () => ({ $out: 'stolen' }) },
  { what: '$merge', value: () => ({ $merge: { into: 'stolen' } }) },
  { what: '$currentOp', value: () => ({ $currentOp: {} }) },
  { what: '$collStats', value: () => ({ $collStats: { count: {} } }) },
  { what: '$documents', value: () => ({ $documents: [{ x: 1 }] }) },
  { what: '$changeStream', value: () => ({ $changeStream: {} }) },
  { what: '$_internal', value: () => ({ $_internalInhibitOptimization: {} }) },
  { what: '__proto__', value: () => JSON.parse('{"__proto__": {"polluted": true}}') as Json },
  { what: 'NUL key', value: () => ({ 'a\u0000b': 1 }) },
  { what: '$$USER_ROLES', value: () => '$$USER_ROLES' },
  { what: '$$CLUSTER_TIME', value: () => '$$CLUSTER_TIME' },
];

/** Join targets outside the project's registered, non-reserved collections. */
export const HOSTILE_TARGETS: Json[] = [
  { db: 'baas_auth', coll: 'users' },
  'users',
  'Users',
  'system.users',
  'system.profile',
  'systemX',
  '../notes',
  'notes.x',
  'a$b',
  '',
  'x'.repeat(65),
  42,
  null,
];

/** A valid pipeline with a hostile fragment planted somewhere inside (any depth). */
export const hostilePipeline: fc.Arbitrary<{ pipeline: Json[]; what: string }> = fc.oneof(
  fc
    .tuple(anyPipeline, fc.integer({ min: 0, max: HOSTILE_FRAGMENTS.length - 1 }), fc.nat(), fc.nat())
    .map(([g, i, at, salt]) => {
      const f = HOSTILE_FRAGMENTS[i] as (typeof HOSTILE_FRAGMENTS)[number];
      return { pipeline: plant(g.pipeline, f.value(), at, salt), what: f.what };
    }),
  fc
    .tuple(
      anyPipeline,
      fc.constantFrom(...HOSTILE_TARGETS),
      fc.constantFrom('$lookup', '$unionWith', '$graphLookup'),
      fc.nat(),
    )
    .map(([g, target, stage, at]) => {
      const join: Json =
        stage === '$lookup'
          ? { $lookup: { from: target, localField: 'k', foreignField: 'k', as: 'x' } }
          : stage === '$unionWith'
            ? { $unionWith: { coll: target, pipeline: [] } }
            : {
                $graphLookup: {
                  from: target,
                  startWith: '$k',
                  connectFromField: 'k',
                  connectToField: 'k',
                  as: 'g',
                },
              };
      const p = [...g.pipeline];
      p.splice(at % (p.length + 1), 0, join);
      return { pipeline: p, what: `${stage} into ${JSON.stringify(target)}` };
    }),
  fc.tuple(anyPipeline, fc.nat()).map(([g, at]) => {
    const p = [...g.pipeline];
    p.splice(1 + (at % p.length), 0, { $geoNear: { near: [0, 0], distanceField: 'd' } });
    return { pipeline: p, what: '$geoNear after the first stage' };
  }),
);

/**
 * Puts `fragment` at a pseudo-random place of the pipeline: as a stage, inside a stage's
 * spec, inside an expression, or as a key of a nested object (never where the JSON would stay
 * valid by accident: the fragment is always reachable by a walker of the whole tree).
 */
export function plant(pipeline: Json[], fragment: Json, at: number, salt: number): Json[] {
  const copy = JSON.parse(JSON.stringify(pipeline)) as Json[];
  const holders: Array<{ [k: string]: Json } | Json[]> = [];
  const visit = (v: Json): void => {
    if (Array.isArray(v)) {
      holders.push(v);
      v.forEach(visit);
    } else if (v !== null && typeof v === 'object') {
      holders.push(v);
      Object.values(v).forEach(visit);
    }
  };
  visit(copy);
  const holder = holders[at % holders.length] as { [k: string]: Json } | Json[];
  if (Array.isArray(holder)) holder.splice(salt % (holder.length + 1), 0, fragment);
  else if (fragment !== null && typeof fragment === 'object' && !Array.isArray(fragment)) {
    // The fragment's own keys join the object (defined, so a `__proto__` key stays data).
    for (const k of Object.keys(fragment))
      Object.defineProperty(holder, k, {
        value: fragment[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  } else holder[`f${salt % 7}`] = fragment;
  // Written and read back as JSON: what a client would send.
  return JSON.parse(JSON.stringify(copy)) as Json[];
}

/** An independent oracle: does the JSON tree hold anything the validator must refuse? */
export function containsBlocked(v: unknown): boolean {
  if (typeof v === 'string') return /^\$\$(USER_ROLES|SEARCH_META|CLUSTER_TIME)/.test(v);
  if (Array.isArray(v)) return v.some(containsBlocked);
  if (v === null || typeof v !== 'object') return false;
  return Object.keys(v).some(
    (k) =>
      k.includes('\u0000') ||
      k === '__proto__' ||
      k.startsWith('$_') ||
      BLOCKED_BY_ORACLE.has(k) ||
      containsBlocked((v as Record<string, unknown>)[k]),
  );
}
const BLOCKED_BY_ORACLE = new Set([
  '$out',
  '$merge',
  '$where',
  '$function',
  '$accumulator',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$collStats',
  '$indexStats',
  '$planCacheStats',
  '$queryStats',
  '$changeStream',
  '$changeStreamSplitLargeEvent',
  '$documents',
  '$listSearchIndexes',
  '$listSampledQueries',
  '$shardedDataDistribution',
  '$querySettings',
  '$searchMeta',
  '$vectorSearch',
  '$listClusterCatalog',
  '$listCatalog',
]);

/**
 * Arbitrary JSON whose keys mix allowed and blocked operators with random text, up to ~6 levels:
 * the fuzz input for "accepted ⇒ nothing blocked anywhere in it".
 */
export const operatorSoup: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => {
  const key = fc.oneof(
    fc.constantFrom(
      '$match',
      '$project',
      '$group',
      '$facet',
      '$lookup',
      '$unionWith',
      '$graphLookup',
      '$expr',
      '$cond',
      '$map',
      '$filter',
      '$reduce',
      '$let',
      'pipeline',
      'from',
      'coll',
      'as',
      'in',
      'cond',
      ...BLOCKED_BY_ORACLE,
      '$_internal',
      '__proto__',
      'constructor',
      'a\u0000',
      '$geoNear',
      '$search',
    ),
    fc.string({ maxLength: 6 }),
  );
  return {
    v: fc.oneof(
      { depthSize: 'small', maxDepth: 6 },
      fc.oneof(
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.string({ maxLength: 8 }),
        fc.constantFrom('$$USER_ROLES', '$$ROOT', '$x'),
      ),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((entries) => {
        const o: Record<string, unknown> = {};
        for (const [k, x] of entries)
          Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
        return o;
      }),
    ),
  };
}).v;
