import type { CallOptions, HttpClient } from './http.js';

/** Fields the server sets on every document. */
export interface SystemFields {
  _id: string;
  isDeleted: boolean;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type SystemKey = keyof SystemFields;

/** A stored document of a collection of `T`. */
export type Doc<T extends object> = Omit<T, SystemKey> & SystemFields;

/** What `insert` takes: the document's own fields (the server ignores system fields). */
export type NewDoc<T extends object> = Omit<T, SystemKey>;

/** A dot-notation path into nested objects (`meta.views`). */
export type DotPath = `${string}.${string}`;

/** What `update` takes: a subset of the fields, and dot-notation paths for nested values. */
export type UpdateDoc<T extends object> = Partial<NewDoc<T>> & { [path: DotPath]: unknown };

type Scalar = string | number | boolean | Date | null;
/** An exact match also matches an array element. */
type Elem<V> = V extends readonly (infer E)[] ? E : V;
type Comparable<V> =
  Extract<Elem<V>, Scalar> extends never
    ? never
    : Extract<Elem<V>, Scalar> | (Date extends Elem<V> ? string : never);

export interface Operators<V> {
  eq?: V;
  ne?: V;
  gt?: V;
  lt?: V;
  /** At most 100 values; none may contain a comma. */
  in?: readonly V[];
  /** JavaScript syntax, case-sensitive, ≤ 100 characters; a RegExp's flags are not sent. */
  regex?: V extends string ? string | RegExp : never;
}

export type Condition<V> = V | Operators<V>;

type Filterable<T extends object> = {
  [K in keyof Doc<T> & string]: Comparable<Doc<T>[K]> extends never ? never : K;
}[keyof Doc<T> & string];

/**
 * Query-string filters of a list: `{ done: false, priority: { gt: 2 }, tag: { in: ['a', 'b'] } }`
 * (exact match and the `_gt _lt _ne _in _regex` suffixes); nested fields by dot path.
 */
export type Filter<T extends object> = {
  [K in Filterable<T>]?: Condition<Comparable<Doc<T>[K]>>;
} & { [path: DotPath]: Condition<Scalar> | undefined };

type SortField<T extends object> = (keyof Doc<T> & string) | DotPath;
/** A field, `-field` for descending. */
export type SortKey<T extends object> = SortField<T> | `-${SortField<T>}`;

export interface ListOptions<T extends object> extends CallOptions {
  filter?: Filter<T>;
  /** Up to 5 fields; newest first when absent. */
  sort?: SortKey<T> | readonly SortKey<T>[];
  /** Page size (default 20, clamped to 100 by the server). */
  limit?: number;
  /** Offset pagination (default 1). Ignored when `cursor` is given. */
  page?: number;
  /** Cursor pagination: `''` starts at the beginning; pass a page's `nextCursor` on. */
  cursor?: string;
  includeDeleted?: boolean;
}

export type IterateOptions<T extends object> = Omit<ListOptions<T>, 'page' | 'cursor'> & { cursor?: string };

export interface Page<T extends object> {
  items: Doc<T>[];
  /** Matches ignoring pagination. */
  total?: number;
  /** Offset pagination. */
  page?: number;
  /** Cursor pagination: the cursor this page was asked with. */
  cursor?: string;
  /** Pass on for the next page; null on the last page. */
  nextCursor: string | null;
  limit: number;
}

/** An aggregation stage in MongoDB syntax (`$match`, `$group`, ...). */
export type PipelineStage = Record<string, unknown>;

function queryValue(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v instanceof RegExp) return v.source;
  if (v === null) return 'null';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const OPS = ['eq', 'ne', 'gt', 'lt', 'in', 'regex'] as const;

function isOperators(v: unknown): v is Operators<unknown> {
  if (!v || typeof v !== 'object' || v instanceof Date || v instanceof RegExp || Array.isArray(v))
    return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => (OPS as readonly string[]).includes(k));
}

/** The list query string of `opts`, in a stable order. Exported for tests. */
export function listQuery<T extends object>(opts: ListOptions<T>): Array<[string, string]> {
  const q: Array<[string, string]> = [];
  for (const [field, cond] of Object.entries(opts.filter ?? {})) {
    if (cond === undefined) continue;
    if (!isOperators(cond)) {
      q.push([field, queryValue(cond)]);
      continue;
    }
    for (const op of OPS) {
      const v = cond[op];
      if (v === undefined) continue;
      if (op === 'eq') q.push([field, queryValue(v)]);
      else if (op === 'in') q.push([`${field}_in`, (v as unknown[]).map(queryValue).join(',')]);
      else q.push([`${field}_${op}`, queryValue(v)]);
    }
  }
  if (opts.sort !== undefined)
    q.push(['sort', typeof opts.sort === 'string' ? opts.sort : opts.sort.join(',')]);
  if (opts.limit !== undefined) q.push(['limit', String(opts.limit)]);
  if (opts.cursor !== undefined) q.push(['cursor', opts.cursor]);
  else if (opts.page !== undefined) q.push(['page', String(opts.page)]);
  if (opts.includeDeleted) q.push(['include_deleted', 'true']);
  return q;
}

/**
 * One collection, typed by the shape of its documents:
 * `const todos = client.collection<Todo>('todos')`. Reads take either key; writes take the secret
 * key, or the publishable key with RLS and a signed-in user.
 */
export class Collection<T extends object = Record<string, unknown>> implements AsyncIterable<Doc<T>> {
  private readonly base: string;

  constructor(
    private readonly http: HttpClient,
    readonly name: string,
  ) {
    this.base = `/api/data/${encodeURIComponent(name)}`;
  }

  private id(id: string): string {
    return `${this.base}/${encodeURIComponent(id)}`;
  }

  async insert(doc: NewDoc<T>, opts: CallOptions = {}): Promise<Doc<T>> {
    return this.http.request<Doc<T>>({ method: 'POST', path: this.base, json: doc, bearer: true, ...opts });
  }

  async get(id: string, opts: CallOptions & { includeDeleted?: boolean } = {}): Promise<Doc<T>> {
    const { includeDeleted, ...rest } = opts;
    return this.http.request<Doc<T>>({
      method: 'GET',
      path: this.id(id),
      ...(includeDeleted ? { query: [['include_deleted', 'true']] } : {}),
      bearer: true,
      ...rest,
    });
  }

  /** Merges `patch` into the document (PUT; omitted fields stay). Answers the whole document. */
  async update(id: string, patch: UpdateDoc<T>, opts: CallOptions = {}): Promise<Doc<T>> {
    const body = await this.http.request<{ data: Doc<T> }>({
      method: 'PUT',
      path: this.id(id),
      json: patch,
      bearer: true,
      ...opts,
    });
    return body.data;
  }

  /** Moves the document to the trash (purged after the grace period; `restore` brings it back). */
  async delete(id: string, opts: CallOptions = {}): Promise<{ id: string }> {
    const body = await this.http.request<{ data: { id: string } }>({
      method: 'DELETE',
      path: this.id(id),
      bearer: true,
      ...opts,
    });
    return body.data;
  }

  /** Secret key only. Restoring an active document is a no-op. */
  async restore(id: string, opts: CallOptions = {}): Promise<Doc<T>> {
    const body = await this.http.request<{ data: Doc<T> }>({
      method: 'POST',
      path: `${this.id(id)}/restore`,
      bearer: true,
      ...opts,
    });
    return body.data;
  }

  /** One page: offset pagination (`page`), or cursor pagination when `cursor` is given. */
  async list(opts: ListOptions<T> = {}): Promise<Page<T>> {
    const body = await this.http.request<{ data: Page<T> }>({
      method: 'GET',
      path: this.base,
      query: listQuery(opts),
      bearer: true,
      ...callOptions(opts),
    });
    return body.data;
  }

  /** Every page, following `nextCursor` (cursor pagination: stable under concurrent inserts). */
  async *pages(opts: IterateOptions<T> = {}): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | null = opts.cursor ?? '';
    while (cursor !== null) {
      const page: Page<T> = await this.list({ ...opts, cursor });
      yield page;
      cursor = page.nextCursor;
    }
  }

  /** Every matching document: `for await (const todo of todos.iterate({ filter: { done: false } }))`. */
  async *iterate(opts: IterateOptions<T> = {}): AsyncGenerator<Doc<T>, void, undefined> {
    for await (const page of this.pages(opts)) yield* page.items;
  }

  /** `for await (const doc of collection)`: every document, newest first. */
  [Symbol.asyncIterator](): AsyncIterator<Doc<T>> {
    return this.iterate();
  }

  /** Runs a pipeline (RLS and trash filters are applied by the server); at most 1000 rows. */
  async aggregate<R = Record<string, unknown>>(
    pipeline: readonly PipelineStage[],
    opts: CallOptions & { includeDeleted?: boolean } = {},
  ): Promise<R[]> {
    const { includeDeleted, ...rest } = opts;
    const body = await this.http.request<{ data: R[] }>({
      method: 'POST',
      path: `${this.base}/aggregate`,
      json: { pipeline },
      ...(includeDeleted ? { query: [['include_deleted', 'true']] } : {}),
      bearer: true,
      ...rest,
    });
    return body.data;
  }
}

function callOptions(opts: CallOptions): CallOptions {
  const out: CallOptions = {};
  if (opts.signal) out.signal = opts.signal;
  if (opts.headers) out.headers = opts.headers;
  return out;
}
