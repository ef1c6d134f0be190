import { dataProject } from './data-support';

describe('data: document quota per project', () => {
  it('accepts documents up to the quota and refuses one past it (403 QUOTA_EXCEEDED)', async () => {
    const p = await dataProject({ limits: { documents: 3 } });
    await p.register('q');
    for (let i = 0; i < 3; i++)
      expect((await p.call('POST', '/api/data/q', { key: p.secretKey, body: { i } })).status).toBe(201);
    const over = await p.call('POST', '/api/data/q', { key: p.secretKey, body: { i: 4 } });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe('QUOTA_EXCEEDED');
    expect((await p.call('GET', '/api/data/q', { key: p.secretKey })).body.data.total).toBe(3);
  });

  it('counts trashed documents until they are purged, and does not charge failed inserts', async () => {
    const p = await dataProject({ limits: { documents: 2 } });
    await p.register('q', { schema: { fields: [{ key: 'n', type: 'Number', required: true }] } });
    expect((await p.call('POST', '/api/data/q', { key: p.secretKey, body: { n: 'bad' } })).status).toBe(400);
    const a = await p.seed('q', { n: 1 });
    await p.seed('q', { n: 2 });
    await p.call('DELETE', `/api/data/q/${a._id}`, { key: p.secretKey });
    expect((await p.call('POST', '/api/data/q', { key: p.secretKey, body: { n: 3 } })).status).toBe(403);
  });

  it('lets exactly the quota through when 30 inserts race against a quota of 10', async () => {
    const p = await dataProject({ limits: { documents: 10 } });
    await p.register('race');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        p.call('POST', '/api/data/race', { key: p.secretKey, body: { i } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 403)).toHaveLength(20);
    expect((await p.call('GET', '/api/data/race', { key: p.secretKey })).body.data.total).toBe(10);
  });

  it('keeps each project on its own quota', async () => {
    const full = await dataProject({ limits: { documents: 1 } });
    const other = await dataProject({ limits: { documents: 1 } });
    await full.register('q');
    await other.register('q');
    await full.seed('q', { a: 1 });
    expect((await full.call('POST', '/api/data/q', { key: full.secretKey, body: {} })).status).toBe(403);
    expect((await other.call('POST', '/api/data/q', { key: other.secretKey, body: {} })).status).toBe(201);
  });
});
