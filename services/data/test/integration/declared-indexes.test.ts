import type { ProjectId } from '@baas/common';
import { purgeTrash } from '../../src/domain/documents/purge-trash';
import { MAX_INDEXED_FIELDS } from '../../src/domain/collections/collection';
import { describeOnStore } from '../../../../test/support/infra';
import { startHarness, register, type Harness } from './harness';

/**
 * Declared indexes (`index: true` on a schema field), on the store under test. On PostgreSQL a
 * list filtered by one equality on an indexed field reads its total and newest page from entries
 * a trigger keeps; on MongoDB the field gets an index. Either way the answers must be exactly
 * those of the same collection without the index: compared here through every write, a schema
 * change in both directions, cursors, and writers racing the change.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness('data_indexes');
});
afterAll(async () => {
  await h?.close();
});

const FIELDS = [
  { key: 'k', type: 'Number' },
  { key: 'tag', type: 'String' },
  { key: 'n', type: 'Number' },
  { key: 'tags', type: 'Array', items: { type: 'String' } },
  { key: 'meta', type: 'Object', fields: [{ key: 'kind', type: 'String' }] },
];
const INDEXED = new Set(['tag', 'n', 'tags', 'kind']);
const schema = (indexed: boolean) => ({
  fields: FIELDS.map((f) =>
    f.key === 'meta'
      ? { ...f, fields: [{ key: 'kind', type: 'String', ...(indexed ? { index: true } : {}) }] }
      : { ...f, ...(indexed && INDEXED.has(f.key) ? { index: true } : {}) },
  ),
});

const QUERIES = [
  'tag=red',
  'tag=blue',
  'tag=none',
  'n=1',
  'n=2',
  'tags=x',
  'tags=y',
  'meta.kind=a',
  'tag=red&include_deleted=true',
  'tag=red&sort=k',
  'tag=blue&page=2&limit=2',
];

async function answer(p: ProjectId, coll: string, qs: string): Promise<{ total: number; ks: number[] }> {
  const limit = qs.includes('limit=') ? '' : 'limit=100&';
  const r = await h.call('GET', `/api/data/${coll}?${limit}${qs}`, { projectId: p });
  expect({ qs, status: r.status }).toEqual({ qs, status: 200 });
  return {
    total: r.body.data.total,
    ks: (r.body.data.items as Array<{ k: number }>).map((d) => d.k),
  };
}

/** Every query gives the same total and the same items, in order, on both collections. */
async function expectSameAnswers(p: ProjectId): Promise<void> {
  for (const qs of QUERIES) {
    const [indexed, plain] = await Promise.all([answer(p, 'ix', qs), answer(p, 'plain', qs)]);
    expect({ qs, ...indexed }).toEqual({ qs, ...plain });
  }
}

async function both(p: ProjectId, method: string, path: (coll: string) => string, body?: unknown) {
  const out: Array<{ status: number; body: any }> = [];
  for (const coll of ['ix', 'plain']) out.push(await h.call(method, path(coll), { projectId: p, body }));
  expect(out[0]?.status).toBe(out[1]?.status);
  return out;
}

describe('declared indexes answer exactly what the collection without them answers', () => {
  it('through inserts, updates, trash, restore, purge and a schema change both ways', async () => {
    const p = h.newProject();
    await register(h, p, 'ix', { schema: schema(true) });
    await register(h, p, 'plain', { schema: schema(false) });
    const docs = [
      { tag: 'red', n: 1, tags: ['x', 'y', 'x'] },
      { tag: 'blue', n: 2, tags: ['y'] },
      { tag: 'red', n: 2, meta: { kind: 'a' } },
      { tag: 'blue', tags: [] },
      { n: 1, meta: { kind: 'b' } },
      { tag: 'blue', n: 1, tags: ['x'] },
      { tag: 'red' },
      { tag: 'blue', meta: { kind: 'a' } },
    ];
    const ids: Array<[string, string]> = [];
    for (const [k, d] of docs.entries()) {
      const [a, b] = await both(p, 'POST', (c) => `/api/data/${c}`, { k, ...d });
      ids.push([a?.body._id, b?.body._id]);
    }
    await expectSameAnswers(p);

    const each = async (i: number, method: string, suffix: string, body?: unknown) => {
      const [a, b] = ids[i] as [string, string];
      for (const [coll, id] of [
        ['ix', a],
        ['plain', b],
      ])
        await h.call(method, `/api/data/${coll}/${id}${suffix}`, { projectId: p, body });
    };
    await each(0, 'PATCH', '', { tag: 'blue', tags: ['z'] });
    await each(2, 'PUT', '', { k: 2, tag: 'blue', n: 1 });
    await each(1, 'DELETE', '');
    await each(5, 'DELETE', '');
    await expectSameAnswers(p);
    await each(1, 'POST', '/restore');
    await each(3, 'DELETE', '');
    await expectSameAnswers(p);
    await purgeTrash(
      h.wiring.deps,
      { olderThan: new Date(Date.now() + 1000).toISOString(), batchSize: 10 },
      0,
    );
    await expectSameAnswers(p);

    // Indexes removed, then declared again over existing documents.
    await register(h, p, 'ix', { schema: schema(false) });
    await expectSameAnswers(p);
    await register(h, p, 'ix', { schema: schema(true) });
    await expectSameAnswers(p);

    // Cursor pages over a filter with the default order, to the end.
    const walk = async (coll: string) => {
      const seen: number[] = [];
      let cursor = '';
      for (let i = 0; i < 10; i++) {
        const r = await h.call('GET', `/api/data/${coll}?tag=blue&limit=2&cursor=${cursor}`, {
          projectId: p,
        });
        seen.push(...(r.body.data.items as Array<{ k: number }>).map((d) => d.k));
        if (!r.body.data.nextCursor) break;
        cursor = encodeURIComponent(r.body.data.nextCursor);
      }
      return seen;
    };
    expect(await walk('ix')).toEqual(await walk('plain'));
    expect((await walk('ix')).length).toBeGreaterThan(2);
  });

  it("another project's documents never count: same collection, same indexed values", async () => {
    const [p, q] = [h.newProject(), h.newProject()];
    for (const proj of [p, q]) await register(h, proj, 'same', { schema: schema(true) });
    for (let k = 0; k < 3; k++)
      await h.call('POST', '/api/data/same', { projectId: q, body: { k, tag: 'red', tags: ['x'] } });
    await h.call('POST', '/api/data/same', { projectId: p, body: { k: 9, tag: 'red' } });
    const total = async (proj: ProjectId, qs: string) =>
      (await h.call('GET', `/api/data/same?${qs}`, { projectId: proj })).body.data as {
        total: number;
        items: Array<{ k: number }>;
      };
    expect(await total(p, 'tag=red')).toMatchObject({ total: 1, items: [{ k: 9 }] });
    expect(await total(p, 'tags=x')).toMatchObject({ total: 0, items: [] });
    expect((await total(q, 'tag=red')).total).toBe(3);
  });

  it('writers racing a schema change that adds the index leave totals equal to a real count', async () => {
    const p = h.newProject();
    await register(h, p, 'race', { schema: schema(false) });
    const writes = Array.from({ length: 40 }, (_, k) =>
      h.call('POST', '/api/data/race', { projectId: p, body: { k, tag: k % 2 ? 'red' : 'blue' } }),
    );
    const change = (async () => {
      await new Promise((r) => setTimeout(r, 5));
      await register(h, p, 'race', { schema: schema(true) });
    })();
    const statuses = (await Promise.all([...writes, change.then(() => ({ status: 201 }))])).map(
      (r) => r.status,
    );
    expect(statuses.every((s) => s === 201)).toBe(true);
    for (const tag of ['red', 'blue']) {
      const fast = await h.call('GET', `/api/data/race?tag=${tag}`, { projectId: p });
      // a second condition takes the plain path: a count over the documents
      const counted = await h.call('GET', `/api/data/race?tag=${tag}&k_gt=-1`, { projectId: p });
      expect(fast.body.data.total).toBe(20);
      expect(counted.body.data.total).toBe(20);
    }
  });

  it(`accepts ${MAX_INDEXED_FIELDS} indexed fields, refuses one more and an index on an Object, in the error body`, async () => {
    const p = h.newProject();
    const fields = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ key: `f${i}`, type: 'String', index: true }));
    const put = (body: unknown) =>
      h.call('PUT', `/api/admin/projects/${p}/collections/lim`, { admin: true, projectId: p, body });
    expect((await put({ schema: { fields: fields(MAX_INDEXED_FIELDS) } })).status).toBe(201);
    const over = await put({ schema: { fields: fields(MAX_INDEXED_FIELDS + 1) } });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      success: false,
      code: 'VALIDATION_FAILED',
      details: [{ path: `f${MAX_INDEXED_FIELDS}` }],
    });
    const object = await put({ schema: { fields: [{ key: 'o', type: 'Object', index: true }] } });
    expect(object.status).toBe(400);
    expect(object.body.details).toEqual([{ path: 'o', message: expect.stringContaining('index') }]);
    // the refused definitions changed nothing
    const got = await h.call('GET', `/api/admin/projects/${p}/collections`, { admin: true, projectId: p });
    expect(got.body[0].schema.fields).toHaveLength(MAX_INDEXED_FIELDS);
  });

  it('the store holds what the declaration says, and nothing of it outlives the collection', async () => {
    const p = h.newProject();
    await register(h, p, 'held', { schema: schema(true) });
    await h.call('POST', '/api/data/held', {
      projectId: p,
      body: { k: 1, tag: 'red', n: 1, tags: ['x', 'x', 'y'], meta: { kind: 'a' } },
    });
    if (h.probe.kind === 'postgres') {
      const { rows } = await h.probe
        .postgresPool()
        .query(
          'SELECT path, count(*)::int AS n FROM document_index_values WHERE project_id = $1 GROUP BY path ORDER BY path',
          [p],
        );
      expect(rows).toEqual([
        { path: 'meta.kind', n: 1 },
        { path: 'n', n: 1 },
        { path: 'tag', n: 1 },
        { path: 'tags', n: 2 },
      ]);
    } else {
      const names = (
        await h.probe
          .mongoDb()
          .client.db(`${h.probe.mongoDb().databaseName}_p_${p}`)
          .collection('held')
          .listIndexes()
          .toArray()
      ).map((i) => i.name as string);
      expect(names.filter((n) => n.startsWith('index_')).sort()).toEqual([
        'index_meta.kind',
        'index_n',
        'index_tag',
        'index_tags',
      ]);
    }
    expect(
      (await h.call('DELETE', `/api/admin/projects/${p}/collections/held`, { admin: true, projectId: p }))
        .status,
    ).toBe(200);
    if (h.probe.kind === 'postgres') {
      const { rows } = await h.probe.postgresPool().query(
        `SELECT (SELECT count(*) FROM document_index_values WHERE project_id = $1)
              + (SELECT count(*) FROM document_index_counts WHERE project_id = $1)
              + (SELECT count(*) FROM collection_indexes WHERE project_id = $1) AS n`,
        [p],
      );
      expect(Number(rows[0].n)).toBe(0);
    }
  });
});

/**
 * Per (path, value, trash flag) of a project: the counts' sum and the entries, where they differ
 * (rows that concurrent writers left may sum to 0 where no entry is left: that is a count of 0).
 */
async function countsAgainstEntries(p: ProjectId) {
  const { rows } = await h.probe.postgresPool().query<{ path: string; counted: number; entries: number }>(
    `SELECT path, coalesce(c.n, 0)::int AS counted, coalesce(v.n, 0)::int AS entries
     FROM (SELECT collection, path, value_key, is_deleted, sum(n) AS n FROM document_index_counts
           WHERE project_id = $1 GROUP BY 1, 2, 3, 4) c
     FULL JOIN (SELECT collection, path, value_key, is_deleted, count(*) AS n FROM document_index_values
           WHERE project_id = $1 GROUP BY 1, 2, 3, 4) v USING (collection, path, value_key, is_deleted)
     WHERE coalesce(c.n, 0) <> coalesce(v.n, 0)`,
    [p],
  );
  return rows;
}

describeOnStore('postgres', 'declared indexes: the counts behind a filtered total on PostgreSQL', () => {
  it('concurrent writers moving values, trashing and restoring leave counts equal to the entries, with no wait between them', async () => {
    const p = h.newProject();
    await register(h, p, 'moves', { schema: schema(true) });
    const ids: string[] = [];
    for (let k = 0; k < 12; k++) {
      const r = await h.call('POST', '/api/data/moves', {
        projectId: p,
        body: { k, tag: `t${k % 3}`, tags: [`t${k % 3}`, `t${(k + 1) % 3}`] },
      });
      ids.push(r.body._id);
    }
    // Each round half the documents take other values (in opposite orders across documents: row
    // locks on shared counters taken in those orders would deadlock) while the other half go to
    // the trash or come back, all at once.
    for (let round = 1; round <= 8; round++) {
      const moving = round % 4 === 1 || round % 4 === 2 ? 1 : 0;
      const trashing = round % 2 === 1;
      const writes = ids.map((id, k) =>
        k % 2 === moving
          ? h.call('PATCH', `/api/data/moves/${id}`, {
              projectId: p,
              body: {
                tag: `t${(k + round) % 3}`,
                tags: [`t${(k + 2 * round) % 3}`, `t${(k + round + 1) % 3}`],
              },
            })
          : h.call(trashing ? 'DELETE' : 'POST', `/api/data/moves/${id}${trashing ? '' : '/restore'}`, {
              projectId: p,
            }),
      );
      const statuses = (await Promise.all(writes)).map((r) => r.status);
      expect({ round, failed: statuses.filter((s) => s >= 300) }).toEqual({ round, failed: [] });
    }
    expect(await countsAgainstEntries(p)).toEqual([]);
    for (const tag of ['t0', 't1', 't2']) {
      const fast = await h.call('GET', `/api/data/moves?tag=${tag}`, { projectId: p });
      const counted = await h.call('GET', `/api/data/moves?tag=${tag}&k_gt=-1`, { projectId: p });
      expect(fast.body.data.total).toBe(counted.body.data.total);
    }
    // a value no document holds any more keeps no row
    const { rows } = await h.probe
      .postgresPool()
      .query('SELECT count(*)::int AS n FROM document_index_counts WHERE project_id = $1 AND n = 0', [p]);
    expect(rows[0].n).toBe(0);
  });

  it("a filtered total is the counts' sum (not a count over the matching entries)", async () => {
    const p = h.newProject();
    await register(h, p, 'summed', { schema: schema(true) });
    for (let k = 0; k < 3; k++)
      await h.call('POST', '/api/data/summed', { projectId: p, body: { k, tag: 'red' } });
    const total = async () =>
      (await h.call('GET', '/api/data/summed?tag=red', { projectId: p })).body.data.total as number;
    expect(await total()).toBe(3);
    // A row a writer left for the next one to fold in counts as much as a folded one.
    const pool = h.probe.postgresPool();
    await pool.query(
      `INSERT INTO document_index_counts (project_id, collection, path, value_key, is_deleted, n)
       VALUES ($1, 'summed', 'tag', document_index_key('"red"'::jsonb), false, 5)`,
      [p],
    );
    expect(await total()).toBe(8);
    // the next writer of the value folds every row it can take into one
    await h.call('POST', '/api/data/summed', { projectId: p, body: { k: 9, tag: 'red' } });
    const { rows } = await pool.query(
      `SELECT count(*)::int AS rows, sum(n)::int AS n FROM document_index_counts
       WHERE project_id = $1 AND path = 'tag' AND NOT is_deleted`,
      [p],
    );
    expect(rows[0]).toEqual({ rows: 1, n: 9 });
  });

  it('the fold is plpgsql: a SQL function was planned on every call of the trigger (~0.25 ms a value)', async () => {
    const { rows } = await h.probe.postgresPool().query<{ lang: string }>(
      `SELECT l.lanname AS lang FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.proname = 'document_index_count_add'`,
    );
    expect(rows).toEqual([{ lang: 'plpgsql' }]);
  });

  it('an index declared over existing documents counts them', async () => {
    const p = h.newProject();
    await register(h, p, 'later', { schema: schema(false) });
    for (let k = 0; k < 5; k++)
      await h.call('POST', '/api/data/later', { projectId: p, body: { k, tag: k < 2 ? 'red' : 'blue' } });
    await register(h, p, 'later', { schema: schema(true) });
    expect(await countsAgainstEntries(p)).toEqual([]);
    const red = await h.call('GET', '/api/data/later?tag=red', { projectId: p });
    expect(red.body.data.total).toBe(2);
  });
});

describeOnStore('postgres', "declared indexes: the writers' lock on PostgreSQL", () => {
  it('one transaction writing documents of 100,000 collections holds a bounded number of locks', async () => {
    const p = h.newProject();
    const pool = h.probe.postgresPool();
    // One statement, one transaction, 100,000 collections: with a lock per collection the
    // server's lock table overflowed ("out of shared memory"); with 64 buckets it cannot.
    await pool.query(
      `INSERT INTO documents (project_id, collection, id, body, created_at, updated_at)
       SELECT $1, 'c' || g, lpad(to_hex(g), 24, '0'), '{}'::jsonb, now(), now() FROM generate_series(1, 100000) g`,
      [p],
    );
    await pool.query('DELETE FROM documents WHERE project_id = $1', [p]);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM documents WHERE project_id = $1', [p]);
    expect(rows[0].n).toBe(0);
  });
});
