import type { ProjectId } from '@baas/common';
import { startHarness, register, type Harness } from './harness';
import { FULL_MONGO_AVAILABLE, fullMongoUrl, stopFullMongo } from '../../../../test/support/full-mongo';

/**
 * $lookup, $unionWith, $graphLookup and $facet inside a project, with trash hidden and RLS
 * applied to every collection they read. They run on the store under test (TEST_STORE: on
 * PostgreSQL and FerretDB the data service evaluates the pipeline itself), and again on a real
 * MongoDB, which runs it natively, when one is at hand (MONGO_FULL_URL, or testcontainers when a
 * Docker engine answers; without either that second run says so on the console).
 */
const joinSuite = (
  label: string,
  start: () => Promise<Harness>,
  stop: () => Promise<void> = async () => {},
) =>
  describe(label, () => {
    let h: Harness;
    let p: ProjectId;
    let other: ProjectId;
    let a: string;
    beforeAll(async () => {
      h = await start();
      p = h.newProject();
      other = h.newProject();
      for (const proj of [p, other]) {
        await register(h, proj, 'notes', { rls: { enabled: true, mode: 'private', ownerField: 'userId' } });
        await register(h, proj, 'tags');
      }
      a = await h.token(p, 'userA');
      await h.call('POST', '/api/data/notes', { projectId: p, body: { k: 1, userId: 'userA', text: 'A' } });
      await h.call('POST', '/api/data/notes', {
        projectId: p,
        body: { k: 1, userId: 'userB', text: 'CANARY-B' },
      });
      await h.call('POST', '/api/data/tags', { projectId: p, body: { k: 1, name: 'tag' } });
      // In the trash: no join may see it.
      const trashed = await h.call('POST', '/api/data/notes', {
        projectId: p,
        body: { k: 1, userId: 'userA', text: 'CANARY-TRASH' },
      });
      await h.call('DELETE', `/api/data/notes/${trashed.body._id}`, { projectId: p });
      await h.call('POST', '/api/data/notes', {
        projectId: other,
        body: { k: 1, userId: 'userA', text: 'CANARY-T2' },
      });
    });
    afterAll(async () => {
      await h?.close();
      await stop();
    });

    const agg = (coll: string, pipeline: unknown[]) =>
      h.call('POST', `/api/data/${coll}/aggregate`, {
        projectId: p,
        key: 'publishable',
        token: a,
        body: { pipeline },
      });

    it("a self-$lookup returns only the caller's documents", async () => {
      const r = await agg('notes', [
        { $lookup: { from: 'notes', localField: 'k', foreignField: 'k', as: 'all' } },
      ]);
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain('CANARY');
      expect(r.body.data[0].all).toHaveLength(1);
    });

    it('a $lookup from a public collection into a private one is filtered by RLS', async () => {
      const r = await agg('tags', [
        {
          $lookup: {
            from: 'notes',
            let: { k: '$k' },
            pipeline: [{ $match: { $expr: { $eq: ['$k', '$$k'] } } }],
            as: 'n',
          },
        },
      ]);
      expect(JSON.stringify(r.body)).not.toContain('CANARY');
      expect(r.body.data[0].n.map((x: { text: string }) => x.text)).toEqual(['A']);
    });

    it('$unionWith, $graphLookup and $facet see only what the caller may read', async () => {
      for (const pipeline of [
        [{ $unionWith: 'notes' }],
        [{ $unionWith: { coll: 'notes', pipeline: [{ $match: {} }] } }],
        [
          {
            $graphLookup: {
              from: 'notes',
              startWith: '$k',
              connectFromField: 'k',
              connectToField: 'k',
              as: 'g',
            },
          },
        ],
        [{ $facet: { x: [{ $lookup: { from: 'notes', localField: 'k', foreignField: 'k', as: 'y' } }] } }],
      ]) {
        const r = await agg('tags', pipeline);
        expect(r.status).toBe(200);
        expect(JSON.stringify(r.body)).not.toContain('CANARY');
      }
    });

    it('refuses server-side JavaScript even where the server would run it', async () => {
      expect(
        (
          await agg('notes', [
            { $match: { $expr: { $function: { body: 'function(){return true}', args: [], lang: 'js' } } } },
          ])
        ).status,
      ).toBe(400);
    });
  });

joinSuite('aggregation joins on the store under test', () => startHarness('data_joins'));

if (FULL_MONGO_AVAILABLE)
  joinSuite(
    'aggregation joins run natively by a real MongoDB (MONGO_FULL_URL)',
    async () => startHarness('data_full', { store: 'mongodb', mongoUrl: await fullMongoUrl() }),
    stopFullMongo,
  );
