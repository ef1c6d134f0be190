import { createClient } from './index.js';
import { listQuery } from './data.js';
import { fakeFetch, json } from '../test/fake-fetch';

interface Todo {
  title: string;
  done: boolean;
  priority: number;
  tags: string[];
  due?: Date;
}

/** A fake list endpoint over `total` documents in pages of `limit`, cursors `c<offset>`. */
function pagedServer(total: number) {
  return fakeFetch((call) => {
    const u = new URL(call.url);
    const limit = Number(u.searchParams.get('limit') ?? 20);
    const cursor = u.searchParams.get('cursor');
    const offset = cursor ? Number(cursor.slice(1)) : 0;
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
      _id: `id${offset + i}`,
      title: `t${offset + i}`,
    }));
    const next = offset + limit < total ? `c${offset + limit}` : null;
    return json(200, {
      success: true,
      data: { items, cursor: cursor ?? '', nextCursor: next, limit },
      message: 'OK',
    });
  });
}

describe('cursor iteration', () => {
  it('for await walks every document over every page, following nextCursor from an empty cursor', async () => {
    const f = pagedServer(23);
    const todos = createClient({ baseUrl: 'http://gw', apiKey: 'pk_live_a', fetch: f }).collection<Todo>(
      'todos',
    );
    const ids: string[] = [];
    for await (const t of todos.iterate({ limit: 5, filter: { done: false }, sort: '-priority' }))
      ids.push(t._id);
    expect(ids).toEqual(Array.from({ length: 23 }, (_, i) => `id${i}`));
    expect(f.calls).toHaveLength(5);
    const first = new URL(f.calls[0]!.url).searchParams;
    expect(first.get('cursor')).toBe('');
    expect(first.get('done')).toBe('false');
    expect(first.get('sort')).toBe('-priority');
    expect(new URL(f.calls[4]!.url).searchParams.get('cursor')).toBe('c20');
  });

  it('pages() yields pages; breaking out stops fetching; the collection itself is async-iterable', async () => {
    const f = pagedServer(50);
    const todos = createClient({ baseUrl: 'http://gw', apiKey: 'pk_live_a', fetch: f }).collection<Todo>(
      'todos',
    );
    let pages = 0;
    for await (const page of todos.pages({ limit: 10 })) {
      expect(page.items).toHaveLength(10);
      if (++pages === 2) break;
    }
    expect(f.calls).toHaveLength(2);
    let n = 0;
    for await (const doc of todos) n += doc._id ? 1 : 0;
    expect(n).toBe(50);
  });

  it('an empty collection yields nothing after one request', async () => {
    const f = pagedServer(0);
    const todos = createClient({ baseUrl: 'http://gw', apiKey: 'pk_live_a', fetch: f }).collection<Todo>(
      'todos',
    );
    const all: unknown[] = [];
    for await (const t of todos.iterate()) all.push(t);
    expect(all).toEqual([]);
    expect(f.calls).toHaveLength(1);
  });
});

describe('list query', () => {
  it('maps filters, operators, sort, paging and include_deleted to the query string', () => {
    const due = new Date('2024-01-05T10:00:00Z');
    expect(
      listQuery<Todo>({
        filter: {
          done: true,
          priority: { gt: 1, lt: 5, ne: 3 },
          tags: { in: ['a', 'b'] },
          title: { regex: /^Buy/ },
          due: { gt: due },
          'meta.color': 'red',
        },
        sort: ['-priority', 'createdAt'],
        limit: 50,
        page: 2,
        includeDeleted: true,
      }),
    ).toEqual([
      ['done', 'true'],
      ['priority_ne', '3'],
      ['priority_gt', '1'],
      ['priority_lt', '5'],
      ['tags_in', 'a,b'],
      ['title_regex', '^Buy'],
      ['due_gt', '2024-01-05T10:00:00.000Z'],
      ['meta.color', 'red'],
      ['sort', '-priority,createdAt'],
      ['limit', '50'],
      ['page', '2'],
      ['include_deleted', 'true'],
    ]);
  });

  it('cursor wins over page; eq is an exact match', () => {
    expect(listQuery<Todo>({ filter: { title: { eq: 'x' } }, cursor: '', page: 3 })).toEqual([
      ['title', 'x'],
      ['cursor', ''],
    ]);
  });
});

describe('documents', () => {
  it('unwraps each route answer: insert/get direct, update/restore/delete data, aggregate rows', async () => {
    const doc = { _id: 'a1', title: 'x', done: false, priority: 1, tags: [] };
    const f = fakeFetch((call) => {
      const m = call.init.method;
      if (call.path.endsWith('/aggregate')) return json(200, { success: true, data: [{ _id: null, n: 1 }] });
      if (call.path.endsWith('/restore')) return json(200, { success: true, data: doc });
      if (m === 'POST') return json(201, doc);
      if (m === 'GET') return json(200, doc);
      if (m === 'PUT') return json(200, { message: 'Updated', data: { ...doc, done: true } });
      return json(200, { success: true, data: { id: 'a1' }, message: 'Document moved to trash' });
    });
    const todos = createClient({ baseUrl: 'http://gw', apiKey: 'sk_live_a', fetch: f }).collection<Todo>(
      'todos',
    );
    expect(await todos.insert({ title: 'x', done: false, priority: 1, tags: [] })).toEqual(doc);
    expect(await todos.get('a1', { includeDeleted: true })).toEqual(doc);
    expect(f.calls[1]?.url).toBe('http://gw/api/data/todos/a1?include_deleted=true');
    expect((await todos.update('a1', { done: true, 'meta.views': 2 })).done).toBe(true);
    expect(f.calls[2]?.init.body).toBe('{"done":true,"meta.views":2}');
    expect(await todos.delete('a1')).toEqual({ id: 'a1' });
    expect(await todos.restore('a1')).toEqual(doc);
    const rows = await todos.aggregate<{ _id: null; n: number }>([{ $group: { _id: null, n: { $sum: 1 } } }]);
    expect(rows[0]?.n).toBe(1);
    expect(JSON.parse(f.calls[5]?.init.body as string)).toEqual({
      pipeline: [{ $group: { _id: null, n: { $sum: 1 } } }],
    });
  });
});
