import { dataProject, type DataProject } from './data-support';

describe('data: list filters, sorting and pagination', () => {
  let p: DataProject;
  const list = async (qs: string, key?: string) => {
    const r = await p.call('GET', `/api/data/items?${qs}`, { key: key ?? p.secretKey });
    return r;
  };
  const names = async (qs: string) => {
    const r = await list(qs);
    expect(r.status).toBe(200);
    return (r.body.data.items as Array<{ name: string }>).map((i) => i.name).sort();
  };

  beforeAll(async () => {
    p = await dataProject();
    await p.register('items', {
      schema: {
        fields: [
          { key: 'name', type: 'String' },
          { key: 'price', type: 'Number' },
          { key: 'active', type: 'Boolean' },
          { key: 'at', type: 'Date' },
        ],
      },
    });
    await p.register('loose');
    const rows = [
      { name: 'apple', price: 5, active: true, at: '2024-01-01T00:00:00Z', meta: { color: 'red' } },
      { name: 'banana', price: 10, active: false, at: '2024-02-01T00:00:00Z', meta: { color: 'yellow' } },
      { name: 'cherry', price: 15, active: true, at: '2024-03-01T00:00:00Z', meta: { color: 'red' } },
      { name: 'date', price: 20, active: false, at: '2024-04-01T00:00:00Z', meta: { color: 'brown' } },
    ];
    for (const r of rows) await p.seed('items', r);
    for (const r of [
      { name: 'x', score: 5 },
      { name: 'y', score: '7' },
      { name: 'z', score: 9, flag: true },
    ])
      await p.seed('loose', r);
  });

  it('returns the list envelope with defaults page 1 and limit 20', async () => {
    const r = await list('');
    expect(r.body).toMatchObject({ success: true, data: { total: 4, page: 1, limit: 20, nextCursor: null } });
    expect(typeof r.body.message).toBe('string');
    expect(r.body.data.items).toHaveLength(4);
    expect(r.body.data.cursor).toBeUndefined();
  });

  it('matches exactly, coerced by the schema type', async () => {
    expect(await names('name=apple')).toEqual(['apple']);
    expect(await names('price=10')).toEqual(['banana']);
    expect(await names('active=true')).toEqual(['apple', 'cherry']);
    expect(await names('meta.color=red')).toEqual(['apple', 'cherry']);
    expect((await list('price=ten')).status).toBe(400);
  });

  it('supports _gt, _lt, _ne, _in and _regex', async () => {
    expect(await names('price_gt=10')).toEqual(['cherry', 'date']);
    expect(await names('price_lt=10')).toEqual(['apple']);
    expect(await names('price_gt=5&price_lt=20')).toEqual(['banana', 'cherry']);
    expect(await names('name_ne=apple')).toEqual(['banana', 'cherry', 'date']);
    expect(await names('name_in=apple,date,nothing')).toEqual(['apple', 'date']);
    expect(await names('price_in=5,20')).toEqual(['apple', 'date']);
    expect(await names('name_regex=^(a|b)')).toEqual(['apple', 'banana']);
    expect(await names('at_gt=2024-02-15')).toEqual(['cherry', 'date']);
    expect(await names('at_lt=2024-02-15T00:00:00Z')).toEqual(['apple', 'banana']);
  });

  it('bounds _regex length (100 at the limit, 101 refused) and _in size', async () => {
    expect((await list(`name_regex=${'a'.repeat(100)}`)).status).toBe(200);
    expect((await list(`name_regex=${'a'.repeat(101)}`)).status).toBe(400);
    expect((await list('name_regex=(unclosed')).status).toBe(400);
    expect((await list(`name_in=${Array(100).fill('q').join(',')}`)).status).toBe(200);
    expect((await list(`name_in=${Array(101).fill('q').join(',')}`)).status).toBe(400);
  });

  it('refuses the regex syntax one of the stores cannot run, on every store (400 UNSUPPORTED_REGEX)', async () => {
    for (const pattern of ['(?<first>a)pple', '\\p{L}+', '(?i)APPLE', '(?i:APPLE)']) {
      const r = await list(`name_regex=${encodeURIComponent(pattern)}`);
      expect([pattern, r.status, r.body.code]).toEqual([pattern, 400, 'UNSUPPORTED_REGEX']);
    }
    expect(await names(`name_regex=${encodeURIComponent('^(?:b)an')}`)).toEqual(['banana']);
  });

  it('takes 100 query parameters and refuses 101 (400 VALIDATION_FAILED), as every service does', async () => {
    // distinct filters on a collection without a schema (each an equality no document meets)
    const loose = (n: number) =>
      p.call('GET', `/api/data/loose?${Array.from({ length: n }, (_, i) => `f${i}=x`).join('&')}`, {
        key: p.secretKey,
      });
    expect((await loose(100)).status).toBe(200);
    const over = await loose(101);
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('100') });
  });

  it('reads untyped values both as strings and numbers without a schema', async () => {
    const r = await p.call('GET', '/api/data/loose?score_gt=6', { key: p.secretKey });
    expect(r.body.data.items.map((i: { name: string }) => i.name)).toEqual(['z']);
    const eq = await p.call('GET', '/api/data/loose?score=7', { key: p.secretKey });
    expect(eq.body.data.items.map((i: { name: string }) => i.name)).toEqual(['y']);
    const flag = await p.call('GET', '/api/data/loose?flag=true', { key: p.secretKey });
    expect(flag.body.data.items.map((i: { name: string }) => i.name)).toEqual(['z']);
  });

  it('sorts ascending and with - descending', async () => {
    const asc = await list('sort=price');
    expect(asc.body.data.items.map((i: { name: string }) => i.name)).toEqual([
      'apple',
      'banana',
      'cherry',
      'date',
    ]);
    const desc = await list('sort=-price');
    expect(desc.body.data.items.map((i: { name: string }) => i.name)).toEqual([
      'date',
      'cherry',
      'banana',
      'apple',
    ]);
  });

  it('pages with page/limit, clamps limit to 100 and refuses non-positive integers', async () => {
    const p1 = await list('sort=price&limit=3&page=1');
    const p2 = await list('sort=price&limit=3&page=2');
    expect(p1.body.data).toMatchObject({ page: 1, limit: 3, total: 4 });
    expect(p1.body.data.items.map((i: { name: string }) => i.name)).toEqual(['apple', 'banana', 'cherry']);
    expect(p2.body.data.items.map((i: { name: string }) => i.name)).toEqual(['date']);
    expect((await list('page=99')).body.data.items).toEqual([]);
    expect((await list('limit=100')).body.data.limit).toBe(100);
    expect((await list('limit=101')).body.data.limit).toBe(100);
    expect((await list('limit=1000000')).body.data.limit).toBe(100);
    for (const bad of [
      'page=0',
      'page=-1',
      'page=1.5',
      'page=abc',
      'limit=0',
      'limit=-5',
      'limit=2.5',
      'limit=abc',
    ])
      expect((await list(bad)).status).toBe(400);
  });

  it('walks every document exactly once with cursor pagination while documents are inserted', async () => {
    await p.register('stream');
    const seeded = new Set<string>();
    for (let i = 0; i < 25; i++) seeded.add((await p.seed('stream', { i }))._id);
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    for (;;) {
      const r = await p.call('GET', `/api/data/stream?limit=4&cursor=${encodeURIComponent(cursor)}`, {
        key: p.secretKey,
      });
      expect(r.status).toBe(200);
      expect(r.body.data.cursor).toBe(cursor);
      expect(r.body.data.page).toBeUndefined();
      expect(r.body.data.limit).toBe(4);
      seen.push(...r.body.data.items.map((d: { _id: string }) => d._id));
      await p.seed('stream', { inserted: pages });
      pages++;
      if (r.body.data.nextCursor === null) break;
      expect(typeof r.body.data.nextCursor).toBe('string');
      cursor = r.body.data.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of seeded) expect(seen).toContain(id);
    expect((await p.call('GET', '/api/data/stream?cursor=bogus!!', { key: p.secretKey })).status).toBe(400);
  });

  it('walks in ascending order with sort=createdAt, and by any other sort with a cursor bound to it', async () => {
    const first = await p.call('GET', '/api/data/items?cursor=&sort=createdAt&limit=2', { key: p.secretKey });
    expect(first.body.data.items.map((i: { name: string }) => i.name)).toEqual(['apple', 'banana']);
    const second = await p.call(
      'GET',
      `/api/data/items?cursor=${first.body.data.nextCursor}&sort=createdAt&limit=2`,
      { key: p.secretKey },
    );
    expect(second.body.data.items.map((i: { name: string }) => i.name)).toEqual(['cherry', 'date']);
    expect(second.body.data.nextCursor).toBeNull();
    const byPrice = await p.call('GET', '/api/data/items?cursor=&sort=-price&limit=3', { key: p.secretKey });
    expect(byPrice.status).toBe(200);
    const rest = await p.call('GET', `/api/data/items?cursor=${byPrice.body.data.nextCursor}&sort=-price`, {
      key: p.secretKey,
    });
    const prices = [...byPrice.body.data.items, ...rest.body.data.items].map(
      (i: { price: number }) => i.price,
    );
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    expect(prices).toHaveLength(byPrice.body.data.total);
    const mismatch = await p.call(
      'GET',
      `/api/data/items?cursor=${byPrice.body.data.nextCursor}&sort=price`,
      {
        key: p.secretKey,
      },
    );
    expect([mismatch.status, mismatch.body.code]).toEqual([400, 'CURSOR_MISMATCH']);
  });
});
