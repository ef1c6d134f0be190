import { errors } from '@baas/common';
import type { PoolClient } from '@baas/common/postgres';
import type { Condition, DocumentQuery } from '../../domain/documents/query';
import { Params, conditionSql, isNewestFirst, keysetSql, limitSql, orderBySql, storedJson } from './sql';

/**
 * Declared indexes on PostgreSQL (`index: true` on a schema field; migration 0003). A trigger on
 * `documents` keeps one entry per (document, indexed path, scalar value) in
 * `document_index_values`, and the number of entries per value in `document_index_counts`
 * (migration 0004), whatever statement writes the document; this module writes the entries and
 * counts of existing documents when the indexed paths change, and reads them for a list whose
 * filter is one equality on a body field: its total from the counts (a few rows, however many
 * documents match), its newest page from the entries.
 *
 * Reads never trust a cached definition: the statement itself checks that the path is indexed
 * (`collection_indexes`) and otherwise counts and pages over `documents` as before, so a replica
 * whose catalogue cache is a moment old still answers exactly.
 */

/** `lax $."a"."b"[*]`: what an equality filter on the dotted path compares (see the migration). */
export function selectorOf(path: string): string {
  return `lax $${path
    .split('.')
    .map((s) => `.${JSON.stringify(s)}`)
    .join('')}[*]`;
}

/** The bucket writers of the collection lock shared (migration 0003): one of 64. */
const LOCK_KEY = `7340, hashtext($1 || '/' || $2) & 63`;
const LOCK_WAIT_MS = 10_000;

/**
 * Sets the collection's indexed paths and rewrites the entries of its documents, in `tx`, when
 * they differ from the stored ones. Writers of the collection hold its bucket's lock shared from
 * their first document write to their commit (migration 0003); here it is taken exclusively by polling (never queueing:
 * a queued exclusive request would make new writers wait behind it while they hold row locks an
 * earlier writer needs). So the entries are written with no write of the collection in flight.
 */
export async function setIndexedPaths(
  tx: PoolClient,
  projectId: string,
  collection: string,
  paths: string[],
): Promise<void> {
  const { rows } = await tx.query<{ paths: string[] }>(
    'SELECT paths FROM collection_indexes WHERE project_id = $1 AND collection = $2',
    [projectId, collection],
  );
  const current = rows[0]?.paths ?? [];
  if (current.length === paths.length && current.every((p, i) => p === paths[i])) return;
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const { rows: got } = await tx.query<{ ok: boolean }>(
      `SELECT pg_try_advisory_xact_lock(${LOCK_KEY}) AS ok`,
      [projectId, collection],
    );
    if (got[0]?.ok) break;
    if (Date.now() > until)
      throw errors.serviceUnavailable('The collection is being written to without a pause; try again');
    await new Promise((r) => setTimeout(r, 25));
  }
  for (const table of ['document_index_values', 'document_index_counts'])
    await tx.query(`DELETE FROM ${table} WHERE project_id = $1 AND collection = $2`, [projectId, collection]);
  if (paths.length === 0) {
    await tx.query('DELETE FROM collection_indexes WHERE project_id = $1 AND collection = $2', [
      projectId,
      collection,
    ]);
    return;
  }
  const selectors = paths.map(selectorOf);
  await tx.query(
    `INSERT INTO collection_indexes (project_id, collection, paths, selectors) VALUES ($1, $2, $3, $4::jsonpath[])
     ON CONFLICT (project_id, collection) DO UPDATE SET paths = EXCLUDED.paths, selectors = EXCLUDED.selectors`,
    [projectId, collection, paths, selectors],
  );
  await tx.query(
    `INSERT INTO document_index_values (project_id, collection, path, value_key, is_deleted, created_at, id)
     SELECT d.project_id, d.collection, x.path, k, d.is_deleted, d.created_at, d.id
     FROM documents d, unnest($3::text[], $4::jsonpath[]) x(path, selector),
          LATERAL unnest(document_index_keys(jsonb_path_query_array(d.body, x.selector))) k
     WHERE d.project_id = $1 AND d.collection = $2`,
    [projectId, collection, paths, selectors],
  );
  await tx.query(
    `INSERT INTO document_index_counts (project_id, collection, path, value_key, is_deleted, n)
     SELECT project_id, collection, path, value_key, is_deleted, count(*) FROM document_index_values
     WHERE project_id = $1 AND collection = $2 GROUP BY project_id, collection, path, value_key, is_deleted`,
    [projectId, collection],
  );
}

/** The entries of a collection or a project go with it (before its documents: no trigger work). */
export async function dropIndexes(tx: PoolClient, projectId: string, collection?: string): Promise<void> {
  const where = collection === undefined ? 'project_id = $1' : 'project_id = $1 AND collection = $2';
  const args = collection === undefined ? [projectId] : [projectId, collection];
  await tx.query(`DELETE FROM collection_indexes WHERE ${where}`, args);
  await tx.query(`DELETE FROM document_index_values WHERE ${where}`, args);
  await tx.query(`DELETE FROM document_index_counts WHERE ${where}`, args);
}

interface IndexedEquality {
  path: string;
  /** The value as stored in jsonb (Dates as ISO strings). */
  json: string;
  deleted: boolean;
}

const SYSTEM = new Set(['_id', 'isDeleted', 'deletedAt', 'createdAt', 'updatedAt']);

/** A filter the entries answer: the trash flag and one equality on a body field with a scalar. */
export function indexedEquality(where: Condition): IndexedEquality | undefined {
  const parts = where.op === 'and' ? where.conditions : [where];
  if (parts.length !== 2) return undefined;
  let deleted: boolean | undefined;
  let field: { path: string; value: unknown } | undefined;
  for (const c of parts) {
    if (c.op !== 'eq') return undefined;
    if (c.field === 'isDeleted' && typeof c.value === 'boolean') deleted = c.value;
    else if (!SYSTEM.has(c.field) && c.value !== null) field = { path: c.field, value: storedJson(c.value) };
    else return undefined;
  }
  if (deleted === undefined || field === undefined) return undefined;
  const v = field.value;
  if (typeof v === 'number' ? !Number.isFinite(v) : typeof v !== 'string' && typeof v !== 'boolean')
    return undefined;
  return { path: field.path, json: JSON.stringify(v), deleted };
}

function parts(where: Condition, ix: IndexedEquality, params: Params) {
  const path = params.add(ix.path);
  const key = `document_index_key(${params.add(ix.json)}::jsonb)`;
  const deleted = params.add(ix.deleted);
  const match = `project_id = $1 AND collection = $2 AND path = ${path} AND value_key = ${key} AND is_deleted = ${deleted}`;
  const entries = `document_index_values WHERE ${match}`;
  const indexed = `EXISTS (SELECT 1 FROM collection_indexes WHERE project_id = $1 AND collection = $2 AND ${path} = ANY (paths))`;
  const scoped = `project_id = $1 AND collection = $2 AND ${conditionSql(where, params)}`;
  const total = `CASE WHEN (SELECT ${indexed}) THEN (SELECT coalesce(sum(n), 0)::bigint FROM document_index_counts WHERE ${match}) ELSE (SELECT count(*) FROM documents WHERE ${scoped}) END`;
  return { total, entries, indexed, scoped, deleted };
}

/** The total of a filter the entries may answer (a count over `documents` when not indexed). */
export function indexedTotalSql(where: Condition, ix: IndexedEquality, params: Params): string {
  return `SELECT ${parts(where, ix, params).total} AS n`;
}

/**
 * One statement for a list whose filter the entries may answer: its total, and its page when the
 * order is the default (newest first). `columns` are the documents' columns to return.
 * $1 and $2 are the project and the collection (as in every statement of the adapter).
 */
export function indexedListSql(
  q: DocumentQuery,
  ix: IndexedEquality,
  params: Params,
  columns: string,
  pageColumns: string,
): string {
  const { total, entries, indexed, scoped, deleted } = parts(q.where, ix, params);
  const keyset = q.after ? ` AND ${keysetSql(q.sort, q.after, params)}` : '';
  const limit = q.limit !== undefined ? limitSql(q.limit) : '';
  const offset = q.skip ? ` OFFSET ${params.add(q.skip)}` : '';
  const order = orderBySql(q.sort, params);
  const scan = (gate: string) =>
    `SELECT ${columns} FROM documents WHERE ${gate}${scoped}${keyset} ORDER BY ${order}${limit}${offset}`;
  // The entries give the page's ids in the index's order; each document is read by primary key
  // (a lateral lookup with LIMIT 1, which the planner cannot turn into a join that scans a small
  // partition). No jsonpath condition on that read: the entries are exact, and with one the
  // planner read every match through the GIN index. The lookup names every column of
  // `documents_by_created` too (the entry's `created_at` is the document's): with only the id
  // beside the trash flag, that index looked as good as the primary key to a generic plan, which
  // then scanned the collection for each id; now either index finds the one row. Only one
  // branch runs: the other's gate is false.
  const page = isNewestFirst(q.sort)
    ? `(SELECT d.* FROM (SELECT id, created_at FROM ${entries}${keyset} ORDER BY created_at DESC, id DESC${limit}${offset}) v
         CROSS JOIN LATERAL (SELECT ${columns} FROM documents x
           WHERE x.project_id = $1 AND x.collection = $2 AND x.id = v.id AND x.is_deleted = ${deleted}
             AND x.created_at = v.created_at LIMIT 1) d
       WHERE (SELECT ${indexed})
       ORDER BY d.created_at DESC, d.id DESC)
       UNION ALL
       (${scan(`NOT (SELECT ${indexed}) AND `)})`
    : scan('');
  return `SELECT t.total, ${pageColumns} FROM (SELECT ${total} AS total) t LEFT JOIN LATERAL (${page}) d ON true`;
}
