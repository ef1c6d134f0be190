/**
 * Type test (compiled by `tsc --noEmit`, see src/types.test.ts): correct uses compile, and every
 * `@ts-expect-error` line must really be an error.
 */
import { createClient, type Doc, type Page } from '../../src/index.js';

interface Todo {
  title: string;
  done: boolean;
  priority: number;
  tags: string[];
  due?: Date;
  meta?: { views: number };
}

const client = createClient({ baseUrl: 'http://localhost:8080', apiKey: 'pk_live_x' });
const todos = client.collection<Todo>('todos');

export async function correctUses(): Promise<void> {
  const created: Doc<Todo> = await todos.insert({ title: 'a', done: false, priority: 1, tags: [] });
  const id: string = created._id;
  const createdAt: string = created.createdAt;
  const deletedAt: string | null = created.deletedAt;
  const title: string = created.title;
  const fetched = await todos.get(id, { includeDeleted: true });
  const done: boolean = fetched.done;
  const updated = await todos.update(id, { done: true, 'meta.views': 3 });
  const views: number | undefined = updated.meta?.views;
  const trashed: { id: string } = await todos.delete(id);
  await todos.restore(trashed.id);

  const page: Page<Todo> = await todos.list({
    filter: {
      done: false,
      priority: { gt: 1, lt: 10, in: [1, 2] },
      title: { regex: /^Buy/ },
      tags: 'red',
      due: { gt: new Date() },
      createdAt: { gt: '2024-01-01T00:00:00Z' },
      'meta.views': { gt: 2 },
    },
    sort: ['-priority', 'createdAt'],
    limit: 50,
    page: 2,
  });
  const total: number | undefined = page.total;
  const next: string | null = page.nextCursor;
  for await (const t of todos.iterate({ filter: { done: true }, sort: '-createdAt' })) {
    const p: number = t.priority;
    void p;
  }
  for await (const t of todos) void t.title;
  const rows = await todos.aggregate<{ _id: boolean; n: number }>([
    { $group: { _id: '$done', n: { $sum: 1 } } },
  ]);
  const n: number | undefined = rows[0]?.n;

  // An untyped collection takes any fields.
  const loose = client.collection('anything');
  await loose.insert({ whatever: 1, nested: { ok: true } });
  void [createdAt, deletedAt, title, done, views, total, next, n];
}

export async function misuses(): Promise<void> {
  // @ts-expect-error a required field is missing
  await todos.insert({ title: 'a', done: false, tags: [] });
  // @ts-expect-error a field of the wrong type
  await todos.insert({ title: 'a', done: 'no', priority: 1, tags: [] });
  // @ts-expect-error an unknown field
  await todos.insert({ title: 'a', done: false, priority: 1, tags: [], colour: 'red' });
  // @ts-expect-error update with a wrong type
  await todos.update('id', { priority: 'high' });
  // @ts-expect-error filter on a field Todo does not have
  await todos.list({ filter: { colour: 'red' } });
  // @ts-expect-error filter value of the wrong type
  await todos.list({ filter: { priority: 'high' } });
  // @ts-expect-error regex on a number field
  await todos.list({ filter: { priority: { regex: '^1' } } });
  // @ts-expect-error in takes an array
  await todos.list({ filter: { priority: { in: 1 } } });
  // @ts-expect-error sort by an unknown field
  await todos.list({ sort: '-colour' });
  const doc = await todos.get('id');
  // @ts-expect-error documents have no such field
  void doc.colour;
  // @ts-expect-error _id is a string
  const bad: number = doc._id;
  // @ts-expect-error page is not an iteration option (cursor pagination)
  todos.iterate({ page: 2 });
  void bad;
}
