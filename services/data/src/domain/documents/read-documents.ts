import type { DataDeps } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { readScope, type Caller } from './access';
import { afterCursor, encodeCursor } from './cursor';
import { and, documentId, documentNotFound, visibility } from './filters';
import { parseBool, parseListQuery } from './list-query';
import { documentView } from './views';

export interface ListResult {
  items: Record<string, unknown>[];
  total: number;
  page?: number;
  cursor?: string;
  nextCursor: string | null;
  limit: number;
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
  const matching = and(visibility(q.includeDeleted), scope, ...q.conditions);
  const maxTime = deps.limits.queryMaxTimeMs;

  if (q.pagination.mode === 'cursor') {
    const { after, raw } = q.pagination;
    const filter = after ? and(matching, afterCursor(after, q.direction)) : matching;
    const [total, page] = await Promise.all([
      coll.count(matching, maxTime),
      coll.find(filter, { sort: q.sort, limit: q.limit + 1, maxTimeMS: maxTime }),
    ]);
    const items = page.slice(0, q.limit);
    const last = items[items.length - 1];
    const more = page.length > q.limit && last !== undefined;
    return {
      items: items.map(documentView),
      total,
      cursor: raw,
      nextCursor: more ? encodeCursor({ createdAt: last.createdAt as Date, id: last._id }) : null,
      limit: q.limit,
    };
  }

  const skip = (q.pagination.page - 1) * q.limit;
  const total = await coll.count(matching, maxTime);
  const items =
    skip >= total
      ? []
      : await coll.find(matching, { sort: q.sort, skip, limit: q.limit, maxTimeMS: maxTime });
  const last = items[items.length - 1];
  const more = skip + items.length < total;
  return {
    items: items.map(documentView),
    total,
    page: q.pagination.page,
    // The default order is the cursor order, so a page can hand over to cursor pagination.
    nextCursor:
      more && q.cursorCompatible && last?.createdAt instanceof Date
        ? encodeCursor({ createdAt: last.createdAt, id: last._id })
        : null,
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
    .findOne(and({ _id: id }, visibility(includeDeleted), scope));
  if (!doc) throw documentNotFound();
  return documentView(doc);
}
