import fc from 'fast-check';
import type { ProjectId } from '@baas/common';
import { and, type Condition } from '../../src/domain/documents/query';
import type { DocumentId } from '../../src/domain/documents/document-id';
import type { AggregationBounds, StoredDoc } from '../../src/ports';
import { capped, runPipeline } from '../../src/adapters/pipeline-engine';
import { planPipeline } from '../../src/adapters/postgres/pipeline-plan';
import { pipelineSql } from '../../src/adapters/postgres/pipeline-sql';
import { conditionSql, Params } from '../../src/adapters/postgres/sql';
import { infra } from '../../../../test/support/infra';
import { propertyParams } from '../property/grammar';
import { canonical } from '../aggregation-corpus/compare';
import { startHarness, register, type Harness } from './harness';

/**
 * On PostgreSQL the leading `$match`, `$group` (common accumulators), `$sort`, `$skip`, `$limit`
 * and `$count` of a pipeline run in SQL (adapters/postgres/pipeline-plan.ts). Two things are
 * shown here: the SQL answer is the in-process engine's answer, row for row and in the same order,
 * on generated documents with mixed types, missing and null values; and a group over more
 * documents than the in-process read bound (50,000) is answered.
 *
 * On MongoDB the pipeline runs natively on a real server. FerretDB (the MongoDB store under test
 * here) evaluates pipelines in process and keeps the read bound: the same group there is a 413, so
 * this file runs on PostgreSQL only.
 */
type Doc = Record<string, unknown>;
const onPostgres = infra.store === 'postgres' ? describe : describe.skip;

const BOUNDS: AggregationBounds = {
  maxInputDocuments: 50_000,
  maxOutputRows: 1000,
  maxWorkingDocuments: 200_000,
  maxWorkingBytes: 64 * 1024 * 1024,
  timeMs: 10_000,
};
const LIVE: Condition = { op: 'eq', field: 'isDeleted', value: false };

let h: Harness;
let p: ProjectId;

beforeAll(async () => {
  if (infra.store !== 'postgres') return;
  h = await startHarness('data_pushdown');
  p = h.newProject();
});
afterAll(async () => {
  await h?.close();
});

// Values MongoDB orders and groups by type: numbers (1 and 1.5, negatives), strings whose binary
// order differs from a locale's, booleans, null; missing is left out of the document.
const scalar = fc.oneof(
  fc.constantFrom(null, 0, 1, -2, 1.5, 10, 'a', 'B', 'b', 'é', 'Z', '', true, false),
  fc.integer({ min: -5, max: 5 }),
);
const MISSING = Symbol('missing');
const field = (nonScalars: boolean) =>
  nonScalars
    ? fc.oneof({ weight: 12, arbitrary: scalar }, fc.constantFrom(MISSING, [1, 'a'], { x: 1 }, []))
    : fc.oneof({ weight: 8, arbitrary: scalar }, fc.constant(MISSING));

// With non-scalars, `g` is sometimes an array of one object: an array on the way to `g.h`.
const docShape = (nonScalars: boolean) =>
  fc.record({
    k: field(nonScalars),
    v: field(nonScalars),
    n: field(false),
    inner: field(nonScalars),
    wrapped: nonScalars
      ? fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true))
      : fc.constant(false),
  });
const dataset = fc.record({
  nonScalars: fc.boolean(),
  docs: fc.integer({ min: 0, max: 40 }),
  seed: fc.integer(),
});

const sortDir = fc.constantFrom(1 as const, -1 as const);
const path = fc.constantFrom('k', 'v', 'n', 'g.h');
const match = fc.oneof(
  fc.constant({ k: { $ne: null } }),
  fc.constant({ n: { $gte: 0 } }),
  fc.constant({ $or: [{ k: 'a' }, { v: { $lt: 2 } }] }),
  fc.constant({ k: { $in: [1, 'a', null] } }),
);
const accumulators = fc.subarray(
  [
    ['count', { $sum: 1 }],
    ['total', { $sum: '$v' }],
    ['mean', { $avg: '$v' }],
    ['c', { $count: {} }],
    ['twice', { $sum: 2 }],
    ['nested', { $sum: '$g.h' }],
    ['low', { $min: '$v' }],
    ['high', { $max: '$g.h' }],
  ] as const,
  { minLength: 1 },
);
const groupStage = fc
  .record({
    key: fc.oneof(
      fc.constant(null),
      path.map((f) => `$${f}`),
    ),
    acc: accumulators,
  })
  .map(({ key, acc }) => ({ $group: { _id: key, ...Object.fromEntries(acc) } }));
const window = fc.array(
  fc.oneof(
    fc.integer({ min: 0, max: 8 }).map((n) => ({ $skip: n })),
    fc.integer({ min: 1, max: 8 }).map((n) => ({ $limit: n })),
  ),
  { maxLength: 2 },
);
const tail = fc.oneof(
  fc.constant([]),
  fc.constant([{ $count: 'n' }]),
  fc.constant([{ $project: { _id: 0 } }]),
);

const pipeline = fc.oneof(
  // $match? → $group → $sort of its rows? → window → tail
  fc
    .tuple(fc.option(match, { nil: undefined }), groupStage, fc.boolean(), sortDir, window, tail)
    .map(([m, g, sorted, dir, w, t]) => {
      const names = Object.keys(g.$group);
      const by = names[names.length - 1] as string;
      return [
        ...(m ? [{ $match: m }] : []),
        g,
        ...(sorted ? [{ $sort: { [by]: dir, _id: 1 } }] : []),
        ...w,
        ...t,
      ];
    }),
  // $match? → $sort of documents → window → tail
  fc
    .tuple(fc.option(match, { nil: undefined }), path, sortDir, fc.boolean(), window, tail)
    .map(([m, f, dir, byId, w, t]) => [
      ...(m ? [{ $match: m }] : []),
      { $sort: { [f]: dir, ...(byId ? { _id: -dir } : {}) } },
      ...w,
      ...t,
    ]),
);

function documentsOf(
  shapes: { k: unknown; v: unknown; n: unknown; inner: unknown; wrapped: boolean }[],
  collection: string,
): StoredDoc[] {
  return shapes.map((s, i) => {
    const body: Doc = {};
    for (const [key, value] of Object.entries({ k: s.k, v: s.v, n: s.n }))
      if (value !== MISSING) body[key] = value;
    if (s.inner !== MISSING) body.g = s.wrapped ? [{ h: s.inner }] : { h: s.inner };
    // Every third document shares its creation time with the one before: ties fall back to _id.
    const at = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 1000);
    return {
      ...body,
      _id: `${collection.slice(-8).padStart(8, '0')}${i.toString(16).padStart(16, '0')}` as DocumentId,
      isDeleted: false,
      deletedAt: null,
      createdAt: at,
      updatedAt: at,
    };
  });
}

onPostgres('aggregation pushdown on PostgreSQL', () => {
  it('gives the in-process answer, in the same order, for generated data and pipelines', async () => {
    let round = 0;
    let translated = 0;
    await fc.assert(
      fc.asyncProperty(
        dataset,
        fc.array(pipeline, { minLength: 10, maxLength: 10 }),
        async (ds, pipelines) => {
          const name = `pd${(round++).toString().padStart(4, '0')}`;
          await register(h, p, name);
          const shapes = fc.sample(docShape(ds.nonScalars), { numRuns: ds.docs, seed: ds.seed });
          const docs = documentsOf(shapes, name);
          const coll = h.wiring.deps.documents.forProject(p).collection(name);
          for (const d of docs) expect(await coll.insert(d, [], 1e9)).toBe('inserted');
          const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
          for (const stages of pipelines) {
            if (planPipeline(stages, () => true)) translated++;
            const expected = runPipeline(docs, capped(stages, BOUNDS), new Map(), BOUNDS);
            const actual = await coll.aggregate(stages, () => and(LIVE), new Set(), BOUNDS);
            expect({ stages, rows: canonical(json(actual)) }).toEqual({
              stages,
              rows: canonical(json(expected)),
            });
          }
        },
      ),
      propertyParams(20),
    );
    expect(translated).toBeGreaterThan(150);
  }, 120_000);

  it('reads the documents instead when a group key is an array or an object, or lies past an array', async () => {
    // The statement asks whether a key is an object or an array once per group (of the group's
    // key) and whether an array lies on the way to it per document: either makes it read the
    // documents, since MongoDB sorts such keys element-wise (and reaches into the array).
    const name = 'nonscalarkeys';
    await register(h, p, name);
    const bodies: Doc[] = [
      { k: [5], g: { h: 2 } },
      { k: 3, g: [{ h: 1 }] },
      { k: [1, 9], g: { h: 1 } },
      { k: { x: 2 }, g: [{ h: 2 }, { h: 3 }] },
      { k: 4, g: { h: 3 } },
    ];
    const docs = documentsOf(
      bodies.map(() => ({ k: MISSING, v: MISSING, n: MISSING, inner: MISSING, wrapped: false })),
      name,
    ).map((d, i) => ({ ...d, ...bodies[i] }));
    const coll = h.wiring.deps.documents.forProject(p).collection(name);
    for (const d of docs) expect(await coll.insert(d, [], 1e9)).toBe('inserted');
    const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
    for (const key of ['$k', '$g.h']) {
      const stages = [{ $group: { _id: key, n: { $sum: 1 } } }, { $sort: { _id: 1 } }];
      expect(planPipeline(stages, () => true)).toBeDefined();
      const expected = runPipeline(docs, capped(stages, BOUNDS), new Map(), BOUNDS);
      const actual = await coll.aggregate(stages, () => and(LIVE), new Set(), BOUNDS);
      expect({ key, rows: json(actual) }).toEqual({ key, rows: json(expected) });
    }
  });

  it('reads the documents of the tied first instants once, not once per tied group', async () => {
    // 2,000 documents in bursts of 50 sharing a creation time, as concurrent creates or a bulk
    // load leave them, and not yet in the statistics: most groups' first documents tie. A lookup
    // per tied group went through the primary key and read the whole collection each time.
    const name = 'bursts';
    await register(h, p, name);
    const pool = h.probe.postgresPool();
    await pool.query(
      `INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
       SELECT $1, $2, lpad(to_hex(i), 24, '0'), jsonb_build_object('k', 'k' || (i % 100)), false, NULL,
              timestamp '2024-01-01' + (i / 50) * interval '1 ms', now()
       FROM generate_series(0, 1999) AS i`,
      [p, name],
    );
    const stages = [{ $group: { _id: '$k', n: { $sum: 1 } } }];
    const plan = planPipeline(stages, () => true);
    if (!plan) throw new Error('the $group should translate');
    const params = new Params([p, name]);
    const where = (q: Params) =>
      `project_id = $1 AND collection = $2 AND ${conditionSql(and(LIVE, ...plan.where), q)}`;
    const sql = pipelineSql(plan, where, params, BOUNDS.maxInputDocuments);
    const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      params.values,
    );
    type PlanNode = { 'Relation Name'?: string; 'Actual Loops'?: number; Plans?: PlanNode[] };
    const loops: number[] = [];
    const walk = (n: PlanNode) => {
      if (n['Relation Name']?.startsWith('documents')) loops.push(n['Actual Loops'] ?? 0);
      n.Plans?.forEach(walk);
    };
    walk((rows[0]?.['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan);
    expect(loops.length).toBeGreaterThanOrEqual(2); // the groups, then the tied instants
    expect(loops.every((n) => n === 1)).toBe(true);
    // and the answer is the in-process engine's, in its order
    const docs = (
      await pool.query<{ id: string; body: Doc; created_at: Date }>(
        `SELECT id, body, created_at FROM documents WHERE project_id = $1 AND collection = $2`,
        [p, name],
      )
    ).rows.map((r) => ({
      ...r.body,
      _id: r.id as DocumentId,
      isDeleted: false,
      deletedAt: null,
      createdAt: r.created_at,
      updatedAt: r.created_at,
    }));
    const coll = h.wiring.deps.documents.forProject(p).collection(name);
    const actual = await coll.aggregate(stages, () => and(LIVE), new Set(), BOUNDS);
    docs.sort((a, b) => +a.createdAt - +b.createdAt || (a._id < b._id ? -1 : 1));
    expect(actual).toEqual(runPipeline(docs, capped(stages, BOUNDS), new Map(), BOUNDS));
  });

  it('groups 1 and 1.0 (stored as written) as one key, apart from "1" and true, missing with null', async () => {
    const name = 'numeric';
    await register(h, p, name);
    const bodies = [
      '{"k": 1}',
      '{"k": 1.0}',
      '{"k": 1.00, "v": 2}',
      '{"k": "1"}',
      '{"k": true}',
      '{"k": null}',
      '{}',
    ];
    await h.probe.postgresPool().query(
      `INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
       SELECT $1, $2, lpad(to_hex(i::int), 24, '0'), b::jsonb, false, NULL, now(), now()
       FROM unnest($3::text[]) WITH ORDINALITY AS t(b, i)`,
      [p, name, bodies],
    );
    const r = await h.call('POST', `/api/data/${name}/aggregate`, {
      projectId: p,
      body: {
        pipeline: [{ $group: { _id: '$k', n: { $sum: 1 }, v: { $sum: '$v' } } }, { $sort: { _id: -1 } }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { _id: true, n: 1, v: 0 },
      { _id: '1', n: 1, v: 0 },
      { _id: 1, n: 3, v: 2 },
      { _id: null, n: 2, v: 0 },
    ]);
  });

  it('orders groups that start at the same instant by their least id of that instant', async () => {
    const name = 'ties';
    await register(h, p, name);
    // read order (created_at, id): c (01:00), a (…01), b (…02), a (…03), then b (…00, 02:00);
    // a and b start at 01:00; b's smallest id is at a later instant and does not count
    const docs: Array<[string, string, string]> = [
      ['000000000000000000000004', 'c', '2024-01-01T01:00:00Z'],
      ['000000000000000000000001', 'a', '2024-01-01T01:00:01Z'],
      ['000000000000000000000002', 'b', '2024-01-01T01:00:01Z'],
      ['000000000000000000000003', 'a', '2024-01-01T01:00:01Z'],
      ['000000000000000000000000', 'b', '2024-01-01T02:00:00Z'],
    ];
    await h.probe.postgresPool().query(
      `INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
       SELECT $1, $2, i, jsonb_build_object('k', k), false, NULL, t::timestamptz, t::timestamptz
       FROM unnest($3::text[], $4::text[], $5::text[]) AS d(i, k, t)`,
      [p, name, docs.map((d) => d[0]), docs.map((d) => d[1]), docs.map((d) => d[2])],
    );
    const r = await h.call('POST', `/api/data/${name}/aggregate`, {
      projectId: p,
      body: { pipeline: [{ $group: { _id: '$k', n: { $sum: 1 } } }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { _id: 'c', n: 1 },
      { _id: 'a', n: 2 },
      { _id: 'b', n: 2 },
    ]);
  });

  it('groups 60,000 documents, more than the in-process read bound, through the API', async () => {
    const name = 'big';
    await register(h, p, name);
    const N = 60_000;
    // Seeded in one statement: the API's insert path is not what this test is about.
    await h.probe.postgresPool().query(
      `INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
       SELECT $1, $2, lpad(to_hex(i), 24, '0'),
              jsonb_build_object('status', (ARRAY['paid', 'open', 'void'])[i % 3 + 1], 'amount', i % 100)
                || CASE WHEN i % 10 = 0 THEN '{"amount": "n/a"}'::jsonb ELSE '{}'::jsonb END,
              i % 50 = 0, CASE WHEN i % 50 = 0 THEN now() END, now(), now()
       FROM generate_series(1, $3::int) AS i`,
      [p, name, N],
    );
    const expected = new Map<string, { n: number; sum: number; count: number }>();
    for (let i = 1; i <= N; i++) {
      if (i % 50 === 0 || i % 100 === 7) continue; // trashed, or left out by the $match below
      const status = ['paid', 'open', 'void'][i % 3] as string;
      const g = expected.get(status) ?? { n: 0, sum: 0, count: 0 };
      g.n++;
      if (i % 10 !== 0) {
        g.sum += i % 100;
        g.count++;
      }
      expected.set(status, g);
    }
    // A $match that keeps more than 50,000 documents: the in-process path would refuse it (413).
    const r = await h.call('POST', `/api/data/${name}/aggregate`, {
      projectId: p,
      body: {
        pipeline: [
          { $match: { status: { $in: ['paid', 'open', 'void'] }, amount: { $ne: 7 } } },
          {
            $group: { _id: '$status', n: { $sum: 1 }, total: { $sum: '$amount' }, mean: { $avg: '$amount' } },
          },
          { $sort: { n: -1, _id: 1 } },
          { $limit: 2 },
        ],
      },
    });
    expect(r.status).toBe(200);
    const want = [...expected.entries()]
      .map(([status, g]) => ({ _id: status, n: g.n, total: g.sum, mean: g.sum / g.count }))
      .sort((a, b) => b.n - a.n || (a._id < b._id ? -1 : 1))
      .slice(0, 2);
    expect(want[0]?.n).toBeGreaterThan(19_000);
    expect(canonical(r.body.data)).toEqual(canonical(want));
    // What stays in process keeps its bound: $first without a $sort before it is not translated.
    const inProcess = await h.call('POST', `/api/data/${name}/aggregate`, {
      projectId: p,
      body: { pipeline: [{ $group: { _id: '$status', first: { $first: '$amount' } } }] },
    });
    expect(inProcess.status).toBe(413);
  }, 60_000);
});
