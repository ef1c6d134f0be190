import { InsertBatcher, type PendingInsert } from '../../src/adapters/postgres/insert-batcher';
import { describeOnStore } from '../../../../test/support/infra';
import { startHarness, register, type Harness } from './harness';

/**
 * Concurrent inserts of one project share statements on PostgreSQL (InsertBatcher); on every
 * store the answers, the quota and the counters must be what one-at-a-time inserts would give.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness('data_batching');
});
afterAll(async () => {
  await h?.close();
});

describe('concurrent inserts of one project', () => {
  it('insert every document once with exact totals, across collections', async () => {
    const p = h.newProject(100);
    await register(h, p, 'ba');
    await register(h, p, 'bb');
    const rs = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        h.call('POST', `/api/data/${i % 2 ? 'ba' : 'bb'}`, { projectId: p, body: { i } }),
      ),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(80).fill(201));
    expect(new Set(rs.map((r) => (r.body as { _id: string })._id)).size).toBe(80);
    expect(await h.wiring.deps.documents.documentCount(p)).toBe(80);
    for (const c of ['ba', 'bb']) {
      expect(await h.probe.storedCount(p, c)).toBe(40);
      expect((await h.call('GET', `/api/data/${c}?limit=1`, { projectId: p })).body.data.total).toBe(40);
    }
    // 30 more against 20 places left: exactly 20 get in, whatever way they are grouped
    const more = await Promise.all(
      Array.from({ length: 30 }, (_, i) => h.call('POST', '/api/data/ba', { projectId: p, body: { i } })),
    );
    expect(more.filter((r) => r.status === 201)).toHaveLength(20);
    expect(more.filter((r) => r.status === 403 && r.body.code === 'QUOTA_EXCEEDED')).toHaveLength(10);
    expect(await h.wiring.deps.documents.documentCount(p)).toBe(100);
    expect((await h.call('GET', '/api/data/ba?limit=1', { projectId: p })).body.data.total).toBe(60);
  });
});

describeOnStore('postgres', 'InsertBatcher', () => {
  const item = (id: string, quotaLimit = 1000): PendingInsert => ({
    collection: 'raw',
    id,
    body: JSON.stringify({ id }),
    isDeleted: false,
    deletedAt: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    events: [],
    quotaLimit,
  });

  it('gives the one failing insert of a shared statement its own error, and inserts the others', async () => {
    const pool = h.probe.postgresPool();
    const batcher = new InsertBatcher(pool);
    const p = h.newProject();
    const ids = Array.from({ length: 12 }, (_, i) => `ffffffffffffffffffff${String(i).padStart(4, '0')}`);
    // the first runs alone; the twelve that queue behind it include one duplicate of it
    const first = batcher.insert(p, item(ids[0]!));
    const rest = [...ids.slice(1), ids[0]!].map((id) => batcher.insert(p, item(id)));
    await expect(first).resolves.toBe('inserted');
    const settled = await Promise.allSettled(rest);
    expect(settled.slice(0, 11).map((s) => s.status === 'fulfilled' && s.value)).toEqual(
      Array(11).fill('inserted'),
    );
    expect(settled[11]).toMatchObject({ status: 'rejected', reason: { code: '23505' } });
    const { rows } = await pool.query(
      'SELECT (SELECT documents FROM project_document_counts WHERE project_id = $1) AS quota, (SELECT count(*) FROM documents WHERE project_id = $1) AS stored',
      [p],
    );
    expect(rows[0]).toEqual({ quota: '12', stored: '12' });
  });

  it('admits as many of a queued group as the quota has room for, in order', async () => {
    const pool = h.probe.postgresPool();
    const batcher = new InsertBatcher(pool);
    const p = h.newProject();
    const ids = Array.from({ length: 10 }, (_, i) => `eeeeeeeeeeeeeeeeeeee${String(i).padStart(4, '0')}`);
    const outcomes = await Promise.all(ids.map((id) => batcher.insert(p, item(id, 6))));
    expect(outcomes).toEqual([...Array(6).fill('inserted'), ...Array(4).fill('quota_exceeded')]);
  });
});
