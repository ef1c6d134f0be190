import type { ProjectId } from '@baas/common';
import { startHarness, register, type Harness } from './harness';

let h: Harness;
let p: ProjectId;

/** Values of every kind MongoDB orders: missing and null first, then numbers, strings, objects, arrays, booleans. */
const SCORES: unknown[] = [
  undefined,
  null,
  3,
  -1.5,
  3,
  10,
  'b',
  'a',
  'B',
  { x: 1 },
  true,
  false,
  undefined,
  0,
  '10',
];
const RANK = (v: unknown): number =>
  v === undefined || v === null
    ? 1
    : typeof v === 'number'
      ? 2
      : typeof v === 'string'
        ? 3
        : typeof v === 'boolean'
          ? 8
          : Array.isArray(v)
            ? 5
            : 4;

beforeAll(async () => {
  h = await startHarness('data_cursor');
  p = h.newProject();
  await register(h, p, 'scores');
  await register(h, p, 'other');
  for (let i = 0; i < 3; i++)
    for (const [j, score] of SCORES.entries()) {
      const body: Record<string, unknown> = { title: `t${(i * 7 + j) % 5}`, i, j };
      if (score !== undefined) body.score = score;
      const r = await h.call('POST', '/api/data/scores', { projectId: p, body });
      expect(r.status).toBe(201);
    }
});
afterAll(async () => {
  await h?.close();
});

async function walk(query: string, limit: number): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let cursor = '';
  for (let pages = 0; pages < 100; pages++) {
    const r = await h.call('GET', `/api/data/scores?${query}&limit=${limit}&cursor=${cursor}`, {
      projectId: p,
    });
    expect(r.status).toBe(200);
    out.push(...r.body.data.items);
    if (r.body.data.nextCursor === null) return out;
    cursor = r.body.data.nextCursor;
  }
  throw new Error('cursor walk did not end');
}

function compareScores(a: unknown, b: unknown): number {
  const ra = RANK(a);
  const rb = RANK(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return 0;
}

describe('cursor pagination over any sort', () => {
  it.each([1, 4, 7])(
    'walks sort=score with pages of %i: every document once, in MongoDB order',
    async (limit) => {
      const items = await walk('sort=score', limit);
      expect(items).toHaveLength(SCORES.length * 3);
      expect(new Set(items.map((d) => d._id)).size).toBe(items.length);
      // Objects compare by content in MongoDB and differently in jsonb: only one object value here.
      for (let k = 1; k < items.length; k++)
        expect(compareScores(items[k - 1]?.score, items[k]?.score)).toBeLessThanOrEqual(0);
    },
  );

  it('walks descending and mixed directions without losing or repeating a document', async () => {
    for (const sort of ['-score', 'title,-score', '-title,score,-i']) {
      const items = await walk(`sort=${sort}`, 4);
      expect(items).toHaveLength(SCORES.length * 3);
      expect(new Set(items.map((d) => d._id)).size).toBe(items.length);
      const full = (await h.call('GET', `/api/data/scores?sort=${sort}&limit=100`, { projectId: p })).body
        .data.items as Array<Record<string, unknown>>;
      expect(items.map((d) => d._id)).toEqual(full.map((d) => d._id));
    }
  });

  it('walks a filtered list and hands over from page mode to cursor mode', async () => {
    const items = await walk('sort=-createdAt&title=t1', 2);
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((d) => d.title === 't1')).toBe(true);
    const first = (await h.call('GET', '/api/data/scores?sort=j&limit=5', { projectId: p })).body.data;
    const next = await h.call('GET', `/api/data/scores?sort=j&limit=100&cursor=${first.nextCursor}`, {
      projectId: p,
    });
    expect(next.body.data.items).toHaveLength(SCORES.length * 3 - 5);
  });

  it('refuses a tampered cursor and a cursor of another sort, filter or collection with 400', async () => {
    const page = (await h.call('GET', '/api/data/scores?sort=score&limit=2&cursor=', { projectId: p })).body
      .data;
    const c = page.nextCursor as string;
    const tampered = Buffer.from(
      Buffer.from(c, 'base64url')
        .toString('utf8')
        .replace(/"i":"[0-9a-f]{24}"/, '"i":"zz"'),
    ).toString('base64url');
    for (const [query, code] of [
      [`scores?sort=score&cursor=${tampered}`, 'INVALID_CURSOR'],
      [`scores?sort=score&cursor=${c.slice(0, -3)}`, 'INVALID_CURSOR'],
      [`scores?sort=-score&cursor=${c}`, 'CURSOR_MISMATCH'],
      [`scores?sort=score&title=t1&cursor=${c}`, 'CURSOR_MISMATCH'],
      [`other?sort=score&cursor=${c}`, 'CURSOR_MISMATCH'],
      [`scores?sort=score&cursor=${'A'.repeat(9000)}`, 'INVALID_CURSOR'],
    ]) {
      const r = await h.call('GET', `/api/data/${query}`, { projectId: p });
      expect([r.status, r.body.code]).toEqual([400, code]);
    }
  });
});
