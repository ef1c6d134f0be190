import { canary, dataProject, type DataProject } from './data-support';

describe('data: write-access matrix and row-level security', () => {
  let p: DataProject;
  let a: { token: string; id: string };
  let b: { token: string; id: string };
  const bCanary = canary('B');
  let bPrivate: Record<string, any>;
  let bPublic: Record<string, any>;

  beforeAll(async () => {
    p = await dataProject();
    await p.register('open'); // no RLS
    await p.register('posts', { rls: { enabled: true, mode: 'public-read', ownerField: 'userId' } });
    await p.register('notes', { rls: { enabled: true, mode: 'private', ownerField: 'ownerId' } });
    [a, b] = [await p.user(), await p.user()];
    bPrivate = (
      await p.call('POST', '/api/data/notes', {
        key: p.publishableKey,
        token: b.token,
        body: { text: bCanary },
      })
    ).body;
    bPublic = (
      await p.call('POST', '/api/data/posts', {
        key: p.publishableKey,
        token: b.token,
        body: { text: bCanary },
      })
    ).body;
  });

  describe('write-access matrix', () => {
    it('pk_live_ without a Bearer token: write refused (403 without RLS, 401 with RLS)', async () => {
      const noRls = await p.call('POST', '/api/data/open', { key: p.publishableKey, body: { x: 1 } });
      expect(noRls.status).toBe(403);
      expect(
        (await p.call('POST', '/api/data/posts', { key: p.publishableKey, body: { x: 1 } })).status,
      ).toBe(401);
      expect(
        (await p.call('POST', '/api/data/notes', { key: p.publishableKey, body: { x: 1 } })).status,
      ).toBe(401);
      expect(
        (await p.call('PATCH', `/api/data/posts/${bPublic._id}`, { key: p.publishableKey, body: { x: 1 } }))
          .status,
      ).toBe(401);
      expect(
        (await p.call('DELETE', `/api/data/posts/${bPublic._id}`, { key: p.publishableKey })).status,
      ).toBe(401);
    });

    it('pk_live_ with a Bearer token on a collection without RLS: write refused (403)', async () => {
      const d = await p.seed('open', { x: 1 });
      expect(
        (await p.call('POST', '/api/data/open', { key: p.publishableKey, token: a.token, body: { x: 1 } }))
          .status,
      ).toBe(403);
      expect(
        (
          await p.call('PUT', `/api/data/open/${d._id}`, {
            key: p.publishableKey,
            token: a.token,
            body: { x: 2 },
          })
        ).status,
      ).toBe(403);
      expect(
        (await p.call('DELETE', `/api/data/open/${d._id}`, { key: p.publishableKey, token: a.token })).status,
      ).toBe(403);
      expect((await p.call('GET', `/api/data/open/${d._id}`, { key: p.secretKey })).body.x).toBe(1);
    });

    it("pk_live_ with a Bearer token and RLS: allowed, limited to the caller's documents", async () => {
      const mine = await p.call('POST', '/api/data/posts', {
        key: p.publishableKey,
        token: a.token,
        body: { text: 'mine' },
      });
      expect(mine.status).toBe(201);
      expect(mine.body.userId).toBe(a.id);
      const upd = await p.call('PATCH', `/api/data/posts/${mine.body._id}`, {
        key: p.publishableKey,
        token: a.token,
        body: { text: 'edited' },
      });
      expect(upd.status).toBe(200);
      expect(upd.body.data.text).toBe('edited');
      const others = await p.call('PATCH', `/api/data/posts/${bPublic._id}`, {
        key: p.publishableKey,
        token: a.token,
        body: { text: 'hacked' },
      });
      expect(others.status).toBe(403);
      expect(
        (await p.call('DELETE', `/api/data/posts/${bPublic._id}`, { key: p.publishableKey, token: a.token }))
          .status,
      ).toBe(403);
      expect(
        (await p.call('GET', `/api/data/posts/${bPublic._id}`, { key: p.secretKey })).body,
      ).toMatchObject({ text: bCanary, isDeleted: false });
      const del = await p.call('DELETE', `/api/data/posts/${mine.body._id}`, {
        key: p.publishableKey,
        token: a.token,
      });
      expect(del.status).toBe(200);
    });

    it('sk_live_: allowed with or without a token, with or without RLS', async () => {
      for (const coll of ['open', 'posts', 'notes']) {
        for (const token of [undefined, a.token]) {
          const c = await p.call('POST', `/api/data/${coll}`, {
            key: p.secretKey,
            token,
            body: { via: 'secret' },
          });
          expect(c.status).toBe(201);
          const u = await p.call('PUT', `/api/data/${coll}/${c.body._id}`, {
            key: p.secretKey,
            token,
            body: { v: 2 },
          });
          expect(u.status).toBe(200);
          expect(
            (await p.call('DELETE', `/api/data/${coll}/${c.body._id}`, { key: p.secretKey, token })).status,
          ).toBe(200);
        }
      }
      const other = await p.call('PATCH', `/api/data/notes/${bPrivate._id}`, {
        key: p.secretKey,
        body: { seen: true },
      });
      expect(other.status).toBe(200);
    });

    it('rejects an invalid or foreign-project token (401)', async () => {
      expect(
        (await p.call('POST', '/api/data/posts', { key: p.publishableKey, token: 'not.a.jwt', body: {} }))
          .status,
      ).toBe(401);
      const q = await dataProject();
      const stranger = await q.user();
      expect(
        (await p.call('POST', '/api/data/posts', { key: p.publishableKey, token: stranger.token, body: {} }))
          .status,
      ).toBe(401);
      expect(
        (await p.call('GET', '/api/data/notes', { key: p.publishableKey, token: stranger.token })).status,
      ).toBe(401);
    });
  });

  describe('owner field', () => {
    it('is filled from the token when omitted and must match it when given', async () => {
      const filled = await p.call('POST', '/api/data/notes', {
        key: p.publishableKey,
        token: a.token,
        body: { t: 1 },
      });
      expect(filled.body.ownerId).toBe(a.id);
      const same = await p.call('POST', '/api/data/notes', {
        key: p.publishableKey,
        token: a.token,
        body: { t: 1, ownerId: a.id },
      });
      expect(same.status).toBe(201);
      const spoof = await p.call('POST', '/api/data/notes', {
        key: p.publishableKey,
        token: a.token,
        body: { t: 1, ownerId: b.id },
      });
      expect(spoof.status).toBe(403);
      const asObject = await p.call('POST', '/api/data/notes', {
        key: p.publishableKey,
        token: a.token,
        body: { t: 1, ownerId: { $ne: 'x' } },
      });
      expect([400, 403]).toContain(asObject.status);
    });

    it('is immutable through every update path (403 Owner field immutable)', async () => {
      const d = (
        await p.call('POST', '/api/data/notes', {
          key: p.publishableKey,
          token: a.token,
          body: { t: 1, nested: { ownerId: 'n' } },
        })
      ).body;
      for (const body of [
        { ownerId: b.id },
        { ownerId: null },
        { ownerId: { id: a.id } },
        { 'ownerId.x': 1 },
        { ownerId: 42 },
      ]) {
        for (const key of [p.publishableKey, p.secretKey]) {
          const r = await p.call('PATCH', `/api/data/notes/${d._id}`, { key, token: a.token, body });
          expect(r.status).toBe(403);
          expect(r.body.message).toBe('Owner field immutable');
        }
      }
      const put = await p.call('PUT', `/api/data/notes/${d._id}`, {
        key: p.publishableKey,
        token: a.token,
        body: { ...d, t: 2 },
      });
      expect(put.status).toBe(200);
      const nested = await p.call('PATCH', `/api/data/notes/${d._id}`, {
        key: p.publishableKey,
        token: a.token,
        body: { 'nested.ownerId': 'm' },
      });
      expect(nested.status).toBe(200);
      const stored = await p.call('GET', `/api/data/notes/${d._id}`, { key: p.secretKey });
      expect(stored.body).toMatchObject({ ownerId: a.id, t: 2, nested: { ownerId: 'm' } });
    });
  });

  describe('public-read mode', () => {
    it('lets anyone with a key read every document, without a token', async () => {
      const list = await p.call('GET', '/api/data/posts', { key: p.publishableKey });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).toContain(bCanary);
      expect(
        (await p.call('GET', `/api/data/posts/${bPublic._id}`, { key: p.publishableKey })).body.text,
      ).toBe(bCanary);
      const agg = await p.call('POST', '/api/data/posts/aggregate', {
        key: p.publishableKey,
        body: { pipeline: [{ $match: { text: bCanary } }] },
      });
      expect(agg.body.data).toHaveLength(1);
    });
  });

  describe('private mode', () => {
    it('needs a Bearer token to read (401)', async () => {
      expect((await p.call('GET', '/api/data/notes', { key: p.publishableKey })).status).toBe(401);
      expect((await p.call('GET', `/api/data/notes/${bPrivate._id}`, { key: p.publishableKey })).status).toBe(
        401,
      );
      expect(
        (await p.call('POST', '/api/data/notes/aggregate', { key: p.publishableKey, body: { pipeline: [] } }))
          .status,
      ).toBe(401);
    });

    it("returns only the caller's documents; the owner sees the canary", async () => {
      const ownerView = await p.call('GET', '/api/data/notes', { key: p.publishableKey, token: b.token });
      expect(JSON.stringify(ownerView.body)).toContain(bCanary);
      const list = await p.call('GET', '/api/data/notes?limit=100', {
        key: p.publishableKey,
        token: a.token,
      });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(bCanary);
      for (const item of list.body.data.items) expect(item.ownerId).toBe(a.id);
      expect(list.body.data.total).toBe(list.body.data.items.length);
    });

    it("answers another user's document like a missing one (404) for read, update and delete", async () => {
      expect(
        (await p.call('GET', `/api/data/notes/${bPrivate._id}`, { key: p.publishableKey, token: b.token }))
          .status,
      ).toBe(200);
      const missing = await p.call('GET', `/api/data/notes/${'f'.repeat(24)}`, {
        key: p.publishableKey,
        token: a.token,
      });
      const other = await p.call('GET', `/api/data/notes/${bPrivate._id}`, {
        key: p.publishableKey,
        token: a.token,
      });
      expect(other.status).toBe(404);
      expect(other.body.code).toBe(missing.body.code);
      expect(other.body.message).toBe(missing.body.message);
      expect(
        (
          await p.call('PATCH', `/api/data/notes/${bPrivate._id}`, {
            key: p.publishableKey,
            token: a.token,
            body: { x: 1 },
          })
        ).status,
      ).toBe(404);
      expect(
        (await p.call('DELETE', `/api/data/notes/${bPrivate._id}`, { key: p.publishableKey, token: a.token }))
          .status,
      ).toBe(404);
      expect(
        (
          await p.call('GET', `/api/data/notes/${bPrivate._id}?include_deleted=true`, {
            key: p.publishableKey,
            token: a.token,
          })
        ).status,
      ).toBe(404);
      expect((await p.call('GET', `/api/data/notes/${bPrivate._id}`, { key: p.secretKey })).body.text).toBe(
        bCanary,
      );
    });

    it('lets owner-field filters only narrow what RLS allows', async () => {
      for (const qs of [
        `ownerId=${b.id}`,
        `ownerId_ne=${a.id}`,
        `ownerId_in=${a.id},${b.id}`,
        'ownerId_regex=.*',
        `_id=${bPrivate._id}`,
        `_id_in=${bPrivate._id}`,
        `text=${bCanary}`,
        'text_regex=CANARY',
      ]) {
        const r = await p.call('GET', `/api/data/notes?${qs}`, { key: p.publishableKey, token: a.token });
        expect(r.status).toBe(200);
        expect(JSON.stringify(r.body)).not.toContain(bCanary);
        for (const item of r.body.data.items) expect(item.ownerId).toBe(a.id);
      }
    });

    it("aggregates only over the caller's documents", async () => {
      const own = await p.call('POST', '/api/data/notes/aggregate', {
        key: p.publishableKey,
        token: b.token,
        body: { pipeline: [{ $match: { text: bCanary } }] },
      });
      expect(own.body.data).toHaveLength(1);
      const count = await p.call('POST', '/api/data/notes/aggregate', {
        key: p.publishableKey,
        token: a.token,
        body: { pipeline: [{ $count: 'n' }] },
      });
      const list = await p.call('GET', '/api/data/notes', { key: p.publishableKey, token: a.token });
      expect(count.body.data[0]?.n ?? 0).toBe(list.body.data.total);
      const grouped = await p.call('POST', '/api/data/notes/aggregate', {
        key: p.publishableKey,
        token: a.token,
        body: { pipeline: [{ $group: { _id: '$ownerId', n: { $sum: 1 } } }] },
      });
      expect(grouped.status).toBe(200);
      expect(JSON.stringify(grouped.body)).not.toContain(bCanary);
      expect(grouped.body.data.every((g: { _id: string }) => g._id === a.id)).toBe(true);
    });

    it('lets the secret key see every document', async () => {
      const all = await p.call('GET', '/api/data/notes?limit=100', { key: p.secretKey });
      expect(JSON.stringify(all.body)).toContain(bCanary);
    });
  });
});
