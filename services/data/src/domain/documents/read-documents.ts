import type { DataDeps, StoredDoc } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { readScope, type Caller } from './access';
import { cursorBinding, encodeCursor, positionFor } from './cursor';
import { and, documentId, documentNotFound, visibility } from './filters';
import { parseBool, parseListQuery } from './list-query';
import { eq, type Keyset, type SortKey } from './query';
import { getPath } from './schema-validation';
import { documentView } from './views';

export interface ListResult {
  items: Record<string, unknown>[];
  total: number;
  page?: number;
  cursor?: string;
  nextCursor: string | null;
  limit: number;
}

/** The keyset position of a listed document in the list's order. */
function positionOf(doc: StoredDoc, sort: SortKey[]): Keyset {
  return {
    values: sort.slice(0, -1).map((k) => getPath(doc, k.field) ?? null),
    id: doc._id,
  };
}

export async function listDocuments(
  deps: DataDeps,
  caller: Caller,
  name: string,
  query: Array<[string, string]>,
): Promise<ListResult> {
  const def = await requireCollection(deps, caller.projectId, name);
  const scope = await readScope(deps, caller, def);
  const q = parseListQuery(query, def);
  const coll = deps.documents.forProject(caller.projectId).collection(name);
  const where = and(visibility(q.includeDeleted), scope, ...q.conditions);
  const binding = cursorBinding(name, q.sort, where);
  const cursorAfter = (doc: StoredDoc | undefined) =>
    doc ? encodeCursor(positionOf(doc, q.sort), binding) : null;

  if (q.pagination.mode === 'cursor') {
    const { after, raw } = q.pagination;
    const position = after ? positionFor(after, binding, q.sort) : undefined;
    const { total, items: page } = await coll.findWithTotal({
      where,
      sort: q.sort,
      limit: q.limit + 1,
      ...(position ? { after: position } : {}),
    });
    const items = page.slice(0, q.limit);
    return {
      items: items.map(documentView),
      total,
      cursor: raw,
      nextCursor: page.length > q.limit ? cursorAfter(items[items.length - 1]) : null,
      limit: q.limit,
    };
  }

  const skip = (q.pagination.page - 1) * q.limit;
  const { total, items } = await coll.findWithTotal({ where, sort: q.sort, skip, limit: q.limit });
  const more = skip + items.length < total;
  return {
    items: items.map(documentView),
    total,
    page: q.pagination.page,
    // Any page can hand over to cursor pagination in the same order.
    nextCursor: more ? cursorAfter(items[items.length - 1]) : null,
    limit: q.limit,
  };
}

export async function getDocument(
  deps: DataDeps,
  caller: Caller,
  name: string,
  rawId: string,
  includeDeletedRaw: string | undefined,
): Promise<Record<string, unknown>> {
  const def = await requireCollection(deps, caller.projectId, name);
  const scope = await readScope(deps, caller, def);
  const includeDeleted = parseBool('include_deleted', includeDeletedRaw);
  const id = documentId(rawId);
  const doc = await deps.documents
    .forProject(caller.projectId)
    .collection(name)
    .findOne(and(eq('_id', id), visibility(includeDeleted), scope));
  if (!doc) throw documentNotFound();
  return documentView(doc);
}
