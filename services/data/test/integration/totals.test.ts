import { purgeTrash } from '../../src/domain/documents/purge-trash';
import { startHarness, register, type Harness } from './harness';

/**
 * A list's `total` without filters comes from counters the writes keep (PostgreSQL) or from a
 * count (MongoDB): either way it must equal what a filtered count says, through every transition.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness('data_totals');
});
afterAll(async () => {
  await h?.close();
});

describe('list totals through the document lifecycle', () => {
  it('match a real count after inserts, trash, restore, purge and with parallel writers', async () => {
    const p = h.newProject();
    await register(h, p, 'tot');
    const total = async (qs = '') =>
      (await h.call('GET', `/api/data/tot?limit=1${qs}`, { projectId: p })).body.data.total as number;
    // `n_gt=-1` matches every document but forces a real count.
    const check = async (live: number, trashed: number) => {
      expect([await total(), await total('&n_gt=-1')]).toEqual([live, live]);
      expect([await total('&include_deleted=true'), await total('&include_deleted=true&n_gt=-1')]).toEqual([
        live + trashed,
        live + trashed,
      ]);
    };
    const ids = (
      await Promise.all(
        Array.from({ length: 12 }, (_, n) => h.call('POST', '/api/data/tot', { projectId: p, body: { n } })),
      )
    ).map((r) => r.body._id as string);
    await check(12, 0);
    await Promise.all(ids.slice(0, 5).map((id) => h.call('DELETE', `/api/data/tot/${id}`, { projectId: p })));
    await h.call('DELETE', `/api/data/tot/${ids[0]}`, { projectId: p }); // already trashed: 404, no change
    await check(7, 5);
    await h.call('POST', `/api/data/tot/${ids[1]}/restore`, { projectId: p });
    await h.call('POST', `/api/data/tot/${ids[1]}/restore`, { projectId: p }); // idempotent
    await h.call('PATCH', `/api/data/tot/${ids[2]}`, { projectId: p, body: { n: 100 } }); // trashed: 404
    await check(8, 4);
    await purgeTrash(h.wiring.deps, { olderThan: new Date().toISOString(), batchSize: 2 }, 0);
    await check(8, 2);
    await purgeTrash(h.wiring.deps, { olderThan: new Date().toISOString(), batchSize: 100 }, 0);
    await check(8, 0);
    const other = h.newProject();
    await register(h, other, 'tot');
    expect(
      (await h.call('GET', '/api/data/tot?include_deleted=true', { projectId: other })).body.data.total,
    ).toBe(0);
  });
});
