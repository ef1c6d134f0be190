import { Client } from 'pg';
import { describeOnStore, infra } from '../../../../test/support/infra';
import { startHarness, register, type Harness } from './harness';

/**
 * On PostgreSQL, the newest-first list (plain, or through a declared index's entries) and inserts
 * go through connections that keep one generic plan per statement; every other read stays on
 * connections that plan it with its values. Which connection ran what is read from pg_stat_activity (each backend's
 * last statement, by application name).
 */
let h: Harness;
let db: string | undefined;
beforeAll(async () => {
  h = await startHarness('data_plans');
  if (h.probe.kind === 'postgres')
    db = (await h.probe.postgresPool().query<{ db: string }>('SELECT current_database() AS db')).rows[0]?.db;
});
afterAll(async () => {
  await h?.close();
});

describeOnStore(
  'postgres',
  'generic plans for the statements whose plan does not depend on values (PostgreSQL)',
  () => {
    // Read on a connection of its own: the service's pool would hand back the very connection
    // whose last statement is looked for.
    async function lastStatements(pool: 'fixed' | 'other'): Promise<string[]> {
      const client = new Client({ connectionString: infra.postgresAdminUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ app: string; query: string }>(
          'SELECT application_name AS app, query FROM pg_stat_activity WHERE datname = $1',
          [db],
        );
        return rows.filter((r) => (r.app === 'baas-data-fixed') === (pool === 'fixed')).map((r) => r.query);
      } finally {
        await client.end();
      }
    }

    it('the generic-plan connections run newest-first lists (through a declared index too) and inserts, nothing else', async () => {
      const p = h.newProject();
      await register(h, p, 'plans', {
        schema: {
          fields: [
            { key: 'tag', type: 'String', index: true },
            { key: 'n', type: 'Number' },
          ],
        },
      });
      const created = await h.call('POST', '/api/data/plans', { projectId: p, body: { tag: 'a', n: 1 } });
      expect(created.status).toBe(201);
      expect((await lastStatements('fixed')).some((q) => q.includes('INSERT INTO documents'))).toBe(true);

      expect((await h.call('GET', '/api/data/plans', { projectId: p })).body.data.total).toBe(1);
      const newest = await lastStatements('fixed');
      expect(newest.some((q) => q.includes('ORDER BY created_at DESC, id DESC'))).toBe(true);

      expect((await h.call('GET', '/api/data/plans?tag=a', { projectId: p })).body.data.total).toBe(1);
      expect((await lastStatements('fixed')).some((q) => q.includes('document_index_counts'))).toBe(true);

      // A read by id, a filter on a body field without a declared index, and one in another
      // order: planned with their values, on the other pool.
      expect((await h.call('GET', `/api/data/plans/${created.body._id}`, { projectId: p })).status).toBe(200);
      const byId = await lastStatements('other');
      expect(byId.some((q) => /FROM documents WHERE .* LIMIT 1$/.test(q))).toBe(true);
      expect((await h.call('GET', '/api/data/plans?n=1', { projectId: p })).body.data.total).toBe(1);
      const plain = await lastStatements('other');
      expect(plain.some((q) => q.includes('@?'))).toBe(true);
      expect((await h.call('GET', '/api/data/plans?tag=a&sort=createdAt', { projectId: p })).status).toBe(
        200,
      );
      const ascending = await lastStatements('other');
      expect(ascending.some((q) => q.includes('ORDER BY') && q.includes('ASC'))).toBe(true);
      const fixed = await lastStatements('fixed');
      expect(fixed.some((q) => / ASC|id = \$3/.test(q))).toBe(false);
    });
  },
);
