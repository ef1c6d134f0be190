import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { ProjectId } from '@baas/common';
import {
  NOTES_SCHEMA,
  anyPipeline,
  countingPipeline,
  hostileFilterKey,
  hostilePipeline,
  propertyParams,
  validListQuery,
} from '../property/grammar';
import { register, startHarness, type Harness } from './harness';

/**
 * Isolation, property-based (issue 12; notes/security.md item 53), on the store under test
 * (TEST_STORE=postgres|mongodb). User A of project P lists and aggregates with a publishable key
 * and A's token over a dataset that also holds user B's and user C's documents (RLS private) and
 * project Q's documents (same collection names, same user ids), every one of them marked with a
 * canary. Per store and run (fixed seed, see ../property/grammar.ts): 1,000 list queries, 400
 * counting pipelines, 1,000 pipelines of the whole grammar, 400 hostile pipelines and 200 hostile
 * filter keys = 3,000 generated requests; with the unit tier's 18,000 cases a run is far past
 * 10,000 generated inputs.
 *
 * Properties: no canary in any answer (body or error), counts and totals never above what A may
 * see, no 5xx; hostile input is a 4xx and never executed (no `$out`/`$merge` target appears).
 */
const CANARY_B = `CANARYB${randomBytes(6).toString('hex')}`;
const CANARY_Q = `CANARYQ${randomBytes(6).toString('hex')}`;
const A_LIVE = 6;
const A_TRASHED = 1;

jest.setTimeout(240_000);

describe(`data isolation properties (${process.env.TEST_STORE ?? 'postgres'})`, () => {
  let h: Harness;
  let p: ProjectId;
  let q: ProjectId;
  let tokenA: string;
  const statuses = new Map<string, Map<number, number>>();

  const note = (i: number, userId: string, canary?: string) => ({
    k: (i % 3) + 1,
    n: i * 7 - 10,
    s: canary ? `${canary}-s${i}` : `a-note-${i}`,
    b: i % 2 === 0,
    at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    tags: canary ? ['x', canary] : ['x', `t${i}`],
    nested: { x: i },
    userId,
    ...(canary ? { secret: canary, [`key_${canary}`]: 1 } : {}),
  });

  async function seed(project: ProjectId, user: string, docs: Record<string, unknown>[], coll = 'notes') {
    const ids: string[] = [];
    for (const body of docs) {
      const r = await h.call('POST', `/api/data/${coll}`, { projectId: project, body });
      if (r.status !== 201) throw new Error(`seed ${user}: ${r.status} ${JSON.stringify(r.body)}`);
      ids.push(r.body._id as string);
    }
    return ids;
  }

  beforeAll(async () => {
    h = await startHarness('data_prop');
    p = h.newProject();
    q = h.newProject();
    for (const proj of [p, q]) {
      await register(h, proj, 'notes', {
        schema: NOTES_SCHEMA,
        rls: { enabled: true, mode: 'private', ownerField: 'userId' },
      });
      await register(h, proj, 'tags');
    }
    const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);
    const aIds = await seed(
      p,
      'userA',
      range(A_LIVE + A_TRASHED).map((i) => note(i, 'userA')),
    );
    for (const id of aIds.slice(A_LIVE)) await h.call('DELETE', `/api/data/notes/${id}`, { projectId: p });
    const bIds = await seed(
      p,
      'userB',
      range(7).map((i) => note(i, 'userB', CANARY_B)),
    );
    await h.call('DELETE', `/api/data/notes/${bIds[0]}`, { projectId: p });
    await seed(
      p,
      'userC',
      range(3).map((i) => note(i, 'userC', CANARY_B)),
    );
    // P's public collection: A may read all of it, so it holds no canary.
    await seed(
      p,
      'tags',
      range(4).map((i) => ({ k: (i % 3) + 1, name: `tag${i}`, userId: 'userB' })),
      'tags',
    );
    // Project Q: the same collections, the same user ids, every value a canary.
    await seed(
      q,
      'userA',
      range(4).map((i) => note(i, 'userA', CANARY_Q)),
    );
    await seed(
      q,
      'userB',
      range(3).map((i) => note(i, 'userB', CANARY_Q)),
    );
    await seed(
      q,
      'tags',
      range(3).map((i) => ({ k: i + 1, name: CANARY_Q, userId: 'userA' })),
      'tags',
    );
    tokenA = await h.token(p, 'userA');
  });

  afterAll(async () => {
    for (const [what, m] of statuses) console.log(`${what}: ${JSON.stringify(Object.fromEntries(m))}`);
    await h?.close();
  });

  function tally(what: string, status: number) {
    const m = statuses.get(what) ?? new Map<number, number>();
    m.set(status, (m.get(status) ?? 0) + 1);
    statuses.set(what, m);
  }
  const okShare = (what: string) => {
    const m = statuses.get(what) ?? new Map<number, number>();
    const all = [...m.values()].reduce((a, b) => a + b, 0);
    return (m.get(200) ?? 0) / Math.max(1, all);
  };

  /** No answer of A's may name B, C or Q: not in data, not in an error message. */
  function expectClean(r: { status: number; body: unknown }) {
    expect(r.status).toBeLessThan(500);
    const text = JSON.stringify(r.body ?? null);
    expect(text).not.toContain(CANARY_B);
    expect(text).not.toContain(CANARY_Q);
  }

  /** A's credentials: P's publishable key and A's access token. */
  const asA = () => ({ projectId: p, key: 'publishable' as const, token: tokenA });
  const list = (pairs: Array<[string, string]>) =>
    h.call('GET', `/api/data/notes?${new URLSearchParams(pairs).toString()}`, asA());
  const aggregate = (coll: string, pipeline: unknown) =>
    h.call('POST', `/api/data/${coll}/aggregate`, { ...asA(), body: { pipeline } });

  it('the dataset is what the properties assume (the secret key sees every canary)', async () => {
    const all = await h.call('GET', '/api/data/notes?limit=100&include_deleted=true', { projectId: p });
    expect(all.body.data.total).toBe(A_LIVE + A_TRASHED + 7 + 3);
    expect(JSON.stringify(all.body)).toContain(CANARY_B);
    const mine = await list([['include_deleted', 'true']]);
    expect(mine.body.data.total).toBe(A_LIVE + A_TRASHED);
  });

  it('filters a field named like an Object.prototype member instead of failing (regression, was a 500)', async () => {
    const cases: Array<[Array<[string, string]>, number]> = [
      [[['toString', 'x']], 0],
      [[['valueOf_gt', '1']], 0],
      [[['hasOwnProperty_in', 'a,b']], 0],
      [[['sort', '-toString']], A_LIVE],
    ];
    for (const [pairs, total] of cases) {
      const r = await list(pairs);
      expect(r.status).toBe(200);
      expect(r.body.data.total).toBe(total);
    }
  });

  it("lists: 1,000 generated filter queries return only A's documents, totals within A's count, no 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(validListQuery, async (pairs) => {
        const r = await list(pairs);
        tally('list', r.status);
        expectClean(r);
        if (r.status !== 200) return;
        const withTrash = pairs.some(([k, v]) => k === 'include_deleted' && (v === 'true' || v === '1'));
        expect(r.body.data.total).toBeLessThanOrEqual(A_LIVE + (withTrash ? A_TRASHED : 0));
        for (const item of r.body.data.items as Array<{ userId: string }>) expect(item.userId).toBe('userA');
      }),
      propertyParams(1000),
    );
    expect(okShare('list')).toBeGreaterThan(0.95);
  });

  it("counting pipelines: 400 generated narrowing pipelines never count more than A's live documents", async () => {
    await fc.assert(
      fc.asyncProperty(countingPipeline, async ({ pipeline }) => {
        const r = await aggregate('notes', pipeline);
        tally('count', r.status);
        expectClean(r);
        if (r.status !== 200) return;
        const rows = r.body.data as Array<{ n?: number }>;
        expect(rows.length).toBeLessThanOrEqual(1);
        expect(rows[0]?.n ?? 0).toBeLessThanOrEqual(A_LIVE);
      }),
      propertyParams(400),
    );
    expect(okShare('count')).toBeGreaterThan(0.9);
  });

  it('any pipeline: 1,000 generated pipelines with joins, facets, unions and groups never show a canary, no 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyPipeline, async ({ collection, pipeline }) => {
        const r = await aggregate(collection, pipeline);
        tally('pipeline', r.status);
        expectClean(r);
      }),
      propertyParams(1000),
    );
    // Mostly answered, so the property is not vacuous (some generated pipelines are legitimately 400).
    expect(okShare('pipeline')).toBeGreaterThan(0.6);
  });

  it('hostile pipelines: 400 generated ones are refused with 400 and never executed', async () => {
    await fc.assert(
      fc.asyncProperty(hostilePipeline, fc.constantFrom('notes', 'tags'), async ({ pipeline }, coll) => {
        const r = await aggregate(coll, pipeline);
        tally('hostile-pipeline', r.status);
        expectClean(r);
        expect(r.status).toBe(400);
      }),
      propertyParams(400),
    );
    for (const proj of [p, q]) expect(await h.probe.storedCount(proj, 'stolen')).toBe(0);
  });

  it('hostile filter keys: 200 generated ones are refused with 400', async () => {
    await fc.assert(
      fc.asyncProperty(hostileFilterKey, fc.string({ maxLength: 6 }), async (key, value) => {
        const r = await list([[key, value]]);
        tally('hostile-filter', r.status);
        expectClean(r);
        expect(r.status).toBe(400);
      }),
      propertyParams(200),
    );
  });
});
