import { canary, dataProject, type DataProject } from './data-support';

/**
 * Injection and cross-tenant attempts. Each attack first proves the canary is really there for
 * its owner, then that the attacker never sees it and nothing changed.
 */
describe('data: injection and cross-tenant attacks', () => {
  let t1: DataProject; // attacker's project
  let t2: DataProject; // victim project
  let a: { token: string; id: string };
  let b: { token: string; id: string };
  const t2Canary = canary('T2');
  const bCanary = canary('B');
  let t2Doc: Record<string, any>;
  let bDoc: Record<string, any>;

  beforeAll(async () => {
    [t1, t2] = [await dataProject(), await dataProject()];
    for (const p of [t1, t2]) {
      await p.register('secrets', { rls: { enabled: true, mode: 'private', ownerField: 'userId' } });
      await p.register('orders');
    }
    t2Doc = await t2.seed('orders', { secret: t2Canary });
    await t2.seed('secrets', { secret: t2Canary, userId: 'victim' });
    [a, b] = [await t1.user(), await t1.user()];
    bDoc = (
      await t1.call('POST', '/api/data/secrets', {
        key: t1.publishableKey,
        token: b.token,
        body: { secret: bCanary },
      })
    ).body;
    await t1.call('POST', '/api/data/secrets', {
      key: t1.publishableKey,
      token: a.token,
      body: { secret: 'mine' },
    });
    await t1.seed('orders', { mine: true });
  });

  const asA = (method: string, path: string, body?: unknown) =>
    t1.call(method, path, { key: t1.publishableKey, token: a.token, body });
  const noLeak = (r: { body: unknown }) => {
    const text = JSON.stringify(r.body ?? '');
    expect(text).not.toContain(bCanary);
    expect(text).not.toContain(t2Canary);
  };

  it('the canaries are there for their owners', async () => {
    expect(JSON.stringify((await t2.call('GET', '/api/data/orders', { key: t2.secretKey })).body)).toContain(
      t2Canary,
    );
    expect(
      JSON.stringify(
        (await t1.call('GET', '/api/data/secrets', { key: t1.publishableKey, token: b.token })).body,
      ),
    ).toContain(bCanary);
  });

  describe('query-string injection', () => {
    it.each([
      'secret[$ne]=x',
      'userId[$ne]=x',
      'secret[$regex]=.*',
      '$where=sleep(100)',
      '$or=x',
      '__proto__[userId]=x',
      'constructor.prototype.x=1',
      '_outbox=1',
      'userId[$exists]=true',
      'a%5B%24ne%5D=x',
    ])('never turns %s into an operator (400, no leak)', async (qs) => {
      const r = await asA('GET', `/api/data/secrets?${qs}`);
      expect(r.status).toBe(400);
      noLeak(r);
    });

    it('treats a bracketed filter value as a literal string', async () => {
      const r = await asA('GET', `/api/data/secrets?secret=${encodeURIComponent('{"$ne":null}')}`);
      expect(r.status).toBe(200);
      expect(r.body.data.items).toEqual([]);
    });
  });

  describe('body injection', () => {
    it('strips top-level $ keys and rejects nested operators on insert', async () => {
      const stripped = await asA('POST', '/api/data/secrets', { $set: { userId: b.id }, x: 1 });
      expect(stripped.status).toBe(201);
      expect(stripped.body.userId).toBe(a.id);
      expect(stripped.body.$set).toBeUndefined();
      for (const body of [
        { x: { $where: 'sleep(1)' } },
        { x: { $gt: '' } },
        { x: [{ $function: {} }] },
        { x: { 'a.b': 1 } },
        { _outbox: [{ type: 'x' }] },
        { _purgeAfterRelay: true },
      ])
        expect((await asA('POST', '/api/data/secrets', body)).status).toBe(400);
    });

    it('cannot use update operators or reserved fields to take over a document', async () => {
      expect(
        (await t1.call('GET', `/api/data/secrets/${bDoc._id}`, { key: t1.publishableKey, token: b.token }))
          .body.secret,
      ).toBe(bCanary);
      const mine = (await asA('POST', '/api/data/secrets', { v: 1 })).body;
      const attempts: unknown[] = [
        { $set: { userId: b.id } },
        { $rename: { v: 'userId' } },
        { $unset: { userId: 1 } },
        { 'x.$y': 1 },
        { '_outbox.0': {} },
      ];
      for (const body of attempts) {
        const r = await asA('PATCH', `/api/data/secrets/${mine._id}`, body);
        expect([200, 400]).toContain(r.status);
      }
      const after = await t1.call('GET', `/api/data/secrets/${mine._id}`, { key: t1.secretKey });
      expect(after.body.userId).toBe(a.id);
      expect(after.body.v).toBe(1);
      const hijack = await asA('PATCH', `/api/data/secrets/${bDoc._id}`, { userId: a.id });
      expect(hijack.status).toBe(404);
      expect((await t1.call('GET', `/api/data/secrets/${bDoc._id}`, { key: t1.secretKey })).body.userId).toBe(
        b.id,
      );
    });

    it('refuses PATCH/DELETE/restore of isDeleted tricks', async () => {
      const mine = (await asA('POST', '/api/data/secrets', { v: 2 })).body;
      await asA('DELETE', `/api/data/secrets/${mine._id}`);
      expect((await asA('PATCH', `/api/data/secrets/${mine._id}`, { isDeleted: false })).status).toBe(404);
      expect((await asA('POST', `/api/data/secrets/${mine._id}/restore`)).status).toBe(403);
      expect(
        (await t1.call('GET', `/api/data/secrets/${mine._id}?include_deleted=true`, { key: t1.secretKey }))
          .body.isDeleted,
      ).toBe(true);
    });
  });

  describe('cross-tenant', () => {
    it("cannot reach another project's document by id with any key", async () => {
      for (const key of [t1.secretKey, t1.publishableKey]) {
        // A publishable key is refused writes on a collection without RLS (403) before any lookup.
        const writeStatus = key === t1.secretKey ? 404 : 403;
        expect((await t1.call('GET', `/api/data/orders/${t2Doc._id}`, { key })).status).toBe(404);
        expect(
          (await t1.call('PATCH', `/api/data/orders/${t2Doc._id}`, { key, body: { x: 1 } })).status,
        ).toBe(writeStatus);
        expect((await t1.call('DELETE', `/api/data/orders/${t2Doc._id}`, { key })).status).toBe(writeStatus);
      }
      for (const token of [a.token, b.token]) {
        expect(
          (await t1.call('GET', `/api/data/secrets/${t2Doc._id}`, { key: t1.publishableKey, token })).status,
        ).toBe(404);
        expect(
          (
            await t1.call('PATCH', `/api/data/secrets/${t2Doc._id}`, {
              key: t1.publishableKey,
              token,
              body: { x: 1 },
            })
          ).status,
        ).toBe(404);
      }
      expect(
        (await t1.call('POST', `/api/data/orders/${t2Doc._id}/restore`, { key: t1.secretKey })).status,
      ).toBe(404);
      const list = await t1.call('GET', `/api/data/orders?_id=${t2Doc._id}&include_deleted=true`, {
        key: t1.secretKey,
      });
      noLeak(list);
      const stillThere = await t2.call('GET', `/api/data/orders/${t2Doc._id}`, { key: t2.secretKey });
      expect(stillThere.body).toMatchObject({ secret: t2Canary, isDeleted: false });
    });

    it('cannot register or read collections of another project through the admin path', async () => {
      const r = await t1.call('GET', `/api/admin/projects/${t2.id}/collections`, { key: t1.secretKey });
      expect(r.status).toBe(401);
      noLeak(r);
    });

    it('cannot aggregate into other tenants, databases or users', async () => {
      const pipelines: unknown[] = [
        [
          {
            $lookup: {
              from: { db: `baas_data_p_${t2.id}`, coll: 'orders' },
              localField: 'x',
              foreignField: 'x',
              as: 'y',
            },
          },
        ],
        [
          {
            $lookup: {
              from: { db: 'baas_auth', coll: 'users' },
              localField: 'x',
              foreignField: 'x',
              as: 'y',
            },
          },
        ],
        [{ $unionWith: { coll: { db: `baas_data_p_${t2.id}`, coll: 'orders' } } }],
        [{ $lookup: { from: 'users', localField: 'x', foreignField: 'x', as: 'y' } }],
        [{ $unionWith: 'system.profile' }],
        [{ $lookup: { from: 'unregistered', localField: 'x', foreignField: 'x', as: 'y' } }],
        [{ $out: 'orders' }],
        [{ $merge: { into: { db: `baas_data_p_${t2.id}`, coll: 'orders' } } }],
        [{ $facet: { x: [{ $out: 'stolen' }] } }],
        [{ $match: { $where: 'true' } }],
        [{ $addFields: { x: { $function: { body: 'function(){return 1}', args: [], lang: 'js' } } } }],
        [
          {
            $group: {
              _id: null,
              x: {
                $accumulator: {
                  init: 'function(){}',
                  accumulate: 'function(){}',
                  accumulateArgs: [],
                  merge: 'function(){}',
                  lang: 'js',
                },
              },
            },
          },
        ],
        [{ $currentOp: {} }],
        [{ $collStats: {} }],
        [{ $documents: [{ a: 1 }] }],
        [{ $listSessions: {} }],
        [{ $match: {} }, { $geoNear: { near: [0, 0], distanceField: 'd' } }],
        JSON.parse('[{"\\u0024out": "x"}]'),
      ];
      for (const pipeline of pipelines) {
        for (const key of [t1.secretKey, t1.publishableKey]) {
          const r = await t1.call('POST', '/api/data/orders/aggregate', {
            key,
            token: key === t1.publishableKey ? a.token : undefined,
            body: { pipeline },
          });
          expect(r.status).toBe(400);
          noLeak(r);
        }
      }
    });

    it('refuses missing or malformed pipelines (400) and pipelines over the size bounds', async () => {
      for (const body of [{}, { pipeline: {} }, { pipeline: 'x' }, { pipeline: null }])
        expect(
          (await t1.call('POST', '/api/data/orders/aggregate', { key: t1.secretKey, body })).status,
        ).toBe(400);
      // at most 20 stages, sub-pipelines included (security notes #51)
      const at = Array.from({ length: 20 }, () => ({ $match: {} }));
      expect(
        (await t1.call('POST', '/api/data/orders/aggregate', { key: t1.secretKey, body: { pipeline: at } }))
          .status,
      ).toBe(200);
      expect(
        (
          await t1.call('POST', '/api/data/orders/aggregate', {
            key: t1.secretKey,
            body: { pipeline: [...at, { $match: {} }] },
          })
        ).body,
      ).toMatchObject({ code: 'PIPELINE_TOO_LONG' });
      const facet = [{ $facet: { a: at.slice(0, 10), b: at.slice(0, 9) } }];
      expect(
        (
          await t1.call('POST', '/api/data/orders/aggregate', {
            key: t1.secretKey,
            body: { pipeline: facet },
          })
        ).status,
      ).toBe(200);
      facet[0]!.$facet.b.push({ $match: {} });
      expect(
        (
          await t1.call('POST', '/api/data/orders/aggregate', {
            key: t1.secretKey,
            body: { pipeline: facet },
          })
        ).body,
      ).toMatchObject({ code: 'PIPELINE_TOO_LONG' });
      const huge = await t1.call('POST', '/api/data/orders/aggregate', {
        key: t1.secretKey,
        body: { pipeline: [{ $match: { x: 'y'.repeat(70_000) } }] },
      });
      expect(huge.status).toBe(413);
      expect(
        (
          await t1.call('POST', '/api/data/unregistered/aggregate', {
            key: t1.secretKey,
            body: { pipeline: [] },
          })
        ).status,
      ).toBe(404);
    });

    it('hides trashed documents from aggregation unless include_deleted=true', async () => {
      const d = await t1.seed('orders', { tag: 'agg-trash' });
      await t1.call('DELETE', `/api/data/orders/${d._id}`, { key: t1.secretKey });
      const hidden = await t1.call('POST', '/api/data/orders/aggregate', {
        key: t1.secretKey,
        body: { pipeline: [{ $match: { tag: 'agg-trash' } }] },
      });
      expect(hidden.body).toMatchObject({ success: true, data: [] });
      const shown = await t1.call('POST', '/api/data/orders/aggregate?include_deleted=true', {
        key: t1.secretKey,
        body: { pipeline: [{ $match: { tag: 'agg-trash' } }] },
      });
      expect(shown.body.data).toHaveLength(1);
      expect(shown.body.data[0]).toMatchObject({ _id: d._id, isDeleted: true });
      expect(shown.body.data[0]._outbox).toBeUndefined();
    });

    it('cannot displace the RLS $match with $addFields/$match tricks', async () => {
      const r = await asA('POST', '/api/data/secrets/aggregate', {
        pipeline: [{ $addFields: { userId: a.id } }, { $match: { userId: a.id } }],
      });
      expect(r.status).toBe(200);
      noLeak(r);
      const all = await asA('POST', '/api/data/secrets/aggregate', {
        pipeline: [{ $match: { $or: [{ userId: b.id }, { userId: { $exists: true } }] } }],
      });
      noLeak(all);
    });
  });
});
