import { AppError, errors, type EventEnvelope, type ProjectId, trustedProjectId } from '@baas/common';
import {
  appendOutbox,
  isUniqueViolation,
  prepared,
  withTransaction,
  type Pool,
  type PoolClient,
} from '@baas/common/postgres';
import type {
  AggregationBounds,
  DocumentCollection,
  DocumentStore,
  InsertOutcome,
  ProjectDocuments,
  PurgeResult,
  StoredDoc,
} from '../../ports';
import { indexedPaths, uniquePaths, type CollectionDef } from '../../domain/collections/collection';
import type { DocumentId } from '../../domain/documents/document-id';
import { and, type Condition, type DocumentQuery, type SortKey } from '../../domain/documents/query';
import { applySet, getPath } from '../../domain/documents/schema-validation';
import type { Stage } from '../../domain/aggregation/validate-pipeline';
import { capped, runPipeline } from '../pipeline-engine';
import type { PgCollectionCatalogue } from './catalogue';
import { reviveDates, touchesDates } from './dates';
import {
  dropIndexes,
  indexedEquality,
  indexedListSql,
  indexedTotalSql,
  setIndexedPaths,
} from './declared-indexes';
import { InsertBatcher } from './insert-batcher';
import { pushableMatch } from './match-pushdown';
import { planPipeline } from './pipeline-plan';
import { pipelineSql } from './pipeline-sql';
import { Params, conditionSql, isNewestFirst, keysetSql, limitSql, newestFirstList, orderBySql } from './sql';

interface Row {
  id: string;
  body: Record<string, unknown>;
  is_deleted: boolean;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, body, is_deleted, deleted_at, created_at, updated_at';
const PAGE_COLUMNS = COLUMNS.split(', ')
  .map((c) => `d.${c}`)
  .join(', ');

/** Errors a client's query can cause (an invalid regex, say) are 400s, never 500s. */
function queryError(e: unknown): unknown {
  const code = (e as { code?: string } | null)?.code;
  if (typeof code === 'string' && /^(2201B|22025|42601|2203.)$/.test(code))
    return errors.badRequest('QUERY_FAILED', 'The database rejected the query (invalid pattern or value)');
  return e;
}

function tooManyDocuments(max: number): AppError {
  return errors.payloadTooLarge(
    `The aggregation would read more than ${max} documents; narrow it with $match`,
  );
}

export interface PgDocumentsContext {
  pool: Pool;
  /**
   * Connections whose prepared statements keep one generic plan (plan_cache_mode =
   * force_generic_plan), for the statements whose plan is the same whatever their values: the
   * newest-first list (`newestFirstList`), its filter through a declared index, and inserts. With the documents table partitioned,
   * PostgreSQL's own choice re-plans such a statement on every execution (a generic plan's
   * estimate counts all 16 partitions although it runs on one): ~0.13 ms of a list's ~0.3 ms
   * in the database.
   */
  fixed: Pool;
  catalogue: PgCollectionCatalogue;
  /** Publish committed outbox rows now. */
  afterCommit: () => void;
}

interface DocumentsContext extends PgDocumentsContext {
  inserts: InsertBatcher;
}

class PgDocumentCollection implements DocumentCollection {
  constructor(
    private readonly projectId: ProjectId,
    private readonly name: string,
    private readonly ctx: DocumentsContext,
  ) {}

  private async def(): Promise<CollectionDef | null> {
    return this.ctx.catalogue.get(this.projectId, this.name);
  }

  private toDoc(r: Row, def: CollectionDef | null): StoredDoc {
    // The row's body is this call's own (parsed from the row): the fields are set on it. Not
    // `{ ...body, _id, ... }`: on Node 20's V8 a spread followed by properties takes a slow path,
    // ~8 us a document (a list of 20: ~170 us of the data service's ~1 ms); Node 24 does not.
    const doc = reviveDates(def?.schema ?? null, r.body) as StoredDoc;
    doc._id = r.id as DocumentId;
    doc.isDeleted = r.is_deleted;
    doc.deletedAt = r.deleted_at;
    doc.createdAt = r.created_at;
    doc.updatedAt = r.updated_at;
    return doc;
  }

  /** `WHERE` of this collection: the project and the collection always come first. */
  private scoped(where: Condition, params: Params): string {
    return `project_id = $1 AND collection = $2 AND ${conditionSql(where, params)}`;
  }

  private params(): Params {
    return new Params([this.projectId, this.name]);
  }

  /** The pool for a read: see `PgDocumentsContext.fixed`. */
  private poolFor(where: Condition, sort: readonly SortKey[]): Pool {
    return newestFirstList(where, sort) ? this.ctx.fixed : this.ctx.pool;
  }

  /**
   * The pool for a newest-first list the declared index's entries may answer: the generic-plan
   * pool when the path is indexed (the statement reads the entries, then each document by its
   * full key), else the other (it filters the documents with a jsonpath). The catalogue's cached
   * definition only picks the pool; the statement itself checks what is indexed.
   */
  private async entriesPool(path: string): Promise<Pool> {
    const def = await this.def();
    return indexedPaths(def?.schema ?? null).includes(path) ? this.ctx.fixed : this.ctx.pool;
  }

  async insert(doc: StoredDoc, events: EventEnvelope[], quotaLimit: number): Promise<InsertOutcome> {
    if (quotaLimit <= 0) return 'quota_exceeded';
    const def = await this.def();
    const { _id, isDeleted, deletedAt, createdAt, updatedAt, ...body } = doc;
    if (uniquePaths(def?.schema ?? null).length === 0) {
      // The common case: one statement (atomic as a statement is) takes the quota, writes the
      // document, its counters and its events; concurrent inserts of the project share it.
      const outcome = await this.ctx.inserts.insert(this.projectId, {
        collection: this.name,
        id: _id,
        body: JSON.stringify(body),
        isDeleted,
        deletedAt,
        createdAt,
        updatedAt,
        events: events.map((e) => JSON.stringify(e)),
        quotaLimit,
      });
      if (outcome === 'inserted' && events.length > 0) this.ctx.afterCommit();
      return outcome;
    }
    const row = [
      this.projectId,
      this.name,
      _id,
      JSON.stringify(body),
      isDeleted,
      deletedAt,
      createdAt,
      updatedAt,
    ];
    const outcome = await withTransaction(this.ctx.pool, async (tx) => {
      // The quota row is the project's write lock for the count: exact across replicas.
      const counted = await tx.query(
        `INSERT INTO project_document_counts AS c (project_id, documents) VALUES ($1, 1)
         ON CONFLICT (project_id) DO UPDATE SET documents = c.documents + 1 WHERE c.documents < $2
         RETURNING documents`,
        [this.projectId, quotaLimit],
      );
      if (counted.rowCount !== 1) return 'quota_exceeded' as const;
      await tx.query(
        `INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        row,
      );
      await tx.query(
        `INSERT INTO collection_counts AS k (project_id, collection, live) VALUES ($1, $2, 1)
         ON CONFLICT (project_id, collection) DO UPDATE SET live = k.live + 1`,
        [this.projectId, this.name],
      );
      await this.claimUnique(tx, def, _id, doc);
      await appendOutbox(tx, events);
      return 'inserted' as const;
    });
    if (outcome === 'inserted') this.ctx.afterCommit();
    return outcome;
  }

  /** Unique schema fields: one row per value, in the writing transaction; a clash is a 400. */
  private async claimUnique(
    tx: PoolClient,
    def: CollectionDef | null,
    id: string,
    doc: Record<string, unknown>,
  ): Promise<void> {
    for (const path of uniquePaths(def?.schema ?? null)) {
      const value = getPath(doc, path);
      if (value === undefined) continue;
      try {
        await tx.query('SAVEPOINT unique_value');
        await tx.query(
          `INSERT INTO document_unique_values (project_id, collection, path, value_hash, document_id)
           VALUES ($1, $2, $3, sha256(convert_to($4::jsonb::text, 'UTF8')), $5)`,
          [this.projectId, this.name, path, JSON.stringify(value), id],
        );
        await tx.query('RELEASE SAVEPOINT unique_value');
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        throw errors.duplicateValue('A document with this value already exists', [
          { path, message: 'must be unique' },
        ]);
      }
    }
  }

  async findOne(where: Condition): Promise<StoredDoc | null> {
    const params = this.params();
    const sql = `SELECT ${COLUMNS} FROM documents WHERE ${this.scoped(where, params)} LIMIT 1`;
    try {
      const [def, { rows }] = await Promise.all([
        this.def(),
        this.ctx.pool.query<Row>(prepared(sql, params.values)),
      ]);
      return rows[0] ? this.toDoc(rows[0], def) : null;
    } catch (e) {
      throw queryError(e);
    }
  }

  async find(q: DocumentQuery): Promise<StoredDoc[]> {
    const params = this.params();
    let where = this.scoped(q.where, params);
    if (q.after) where += ` AND ${keysetSql(q.sort, q.after, params)}`;
    let sql = `SELECT ${COLUMNS} FROM documents WHERE ${where} ORDER BY ${orderBySql(q.sort, params)}`;
    if (q.limit !== undefined) sql += limitSql(q.limit);
    if (q.skip) sql += ` OFFSET ${params.add(q.skip)}`;
    try {
      const [def, { rows }] = await Promise.all([
        this.def(),
        this.poolFor(q.where, q.sort).query<Row>(prepared(sql, params.values)),
      ]);
      return rows.map((r) => this.toDoc(r, def));
    } catch (e) {
      throw queryError(e);
    }
  }

  async findWithTotal(q: DocumentQuery): Promise<{ items: StoredDoc[]; total: number }> {
    const params = this.params();
    const ix = indexedEquality(q.where);
    if (ix)
      return this.pageWithTotal(
        indexedListSql(q, ix, params, COLUMNS, PAGE_COLUMNS),
        params,
        isNewestFirst(q.sort) ? await this.entriesPool(ix.path) : this.ctx.pool,
      );
    const scoped = this.scoped(q.where, params);
    const counted = counterFor(q.where);
    // one statement: the total (from the counters when the filter is only the trash flag, else a
    // count) and the page beside it; a collection without documents still gives its one row
    const total = counted
      ? `coalesce((SELECT ${counted} FROM collection_counts WHERE project_id = $1 AND collection = $2), 0)`
      : `(SELECT count(*) FROM documents WHERE ${scoped})`;
    let pageWhere = scoped;
    if (q.after) pageWhere += ` AND ${keysetSql(q.sort, q.after, params)}`;
    let page = `SELECT ${COLUMNS} FROM documents WHERE ${pageWhere} ORDER BY ${orderBySql(q.sort, params)}`;
    if (q.limit !== undefined) page += limitSql(q.limit);
    if (q.skip) page += ` OFFSET ${params.add(q.skip)}`;
    // columns named, not d.*: a prepared statement over * fails once a migration adds a column
    const sql = `SELECT t.total, ${PAGE_COLUMNS} FROM (SELECT ${total} AS total) t LEFT JOIN LATERAL (${page}) d ON true`;
    return this.pageWithTotal(sql, params, this.poolFor(q.where, q.sort));
  }

  private async pageWithTotal(
    sql: string,
    params: Params,
    pool: Pool,
  ): Promise<{ items: StoredDoc[]; total: number }> {
    try {
      const [def, { rows }] = await Promise.all([
        this.def(),
        pool.query<Row & { total: string }>(prepared(sql, params.values)),
      ]);
      return {
        total: Number(rows[0]?.total ?? 0),
        items: rows.filter((r) => r.id !== null).map((r) => this.toDoc(r, def)),
      };
    } catch (e) {
      throw queryError(e);
    }
  }

  async count(where: Condition): Promise<number> {
    const ix = indexedEquality(where);
    if (ix) {
      const params = this.params();
      const sql = indexedTotalSql(where, ix, params);
      const { rows } = await this.ctx.pool
        .query<{ n: string }>(prepared(sql, params.values))
        .catch((e: unknown) => {
          throw queryError(e);
        });
      return Number(rows[0]?.n ?? 0);
    }
    const counted = counterFor(where);
    if (counted) {
      const { rows } = await this.ctx.pool.query<{ n: string }>(
        prepared(`SELECT ${counted} AS n FROM collection_counts WHERE project_id = $1 AND collection = $2`, [
          this.projectId,
          this.name,
        ]),
      );
      return Number(rows[0]?.n ?? 0);
    }
    const params = this.params();
    try {
      const { rows } = await this.ctx.pool.query<{ n: string }>(
        prepared(`SELECT count(*) AS n FROM documents WHERE ${this.scoped(where, params)}`, params.values),
      );
      return Number(rows[0]?.n ?? 0);
    } catch (e) {
      throw queryError(e);
    }
  }

  async update(
    where: Condition,
    set: Record<string, unknown>,
    events: EventEnvelope[],
  ): Promise<StoredDoc | null> {
    const def = await this.def();
    const unique = uniquePaths(def?.schema ?? null);
    const touchesUnique = Object.keys(set).some((p) =>
      unique.some((u) => u === p || u.startsWith(`${p}.`) || p.startsWith(`${u}.`)),
    );
    const updated = await withTransaction(this.ctx.pool, async (tx) => {
      // Read-modify-write under the row lock: dot paths into missing parents behave as $set does.
      const params = this.params();
      const { rows } = await tx
        .query<Row>(
          `SELECT ${COLUMNS} FROM documents WHERE ${this.scoped(where, params)} LIMIT 1 FOR UPDATE`,
          params.values,
        )
        .catch((e: unknown) => {
          throw queryError(e);
        });
      const row = rows[0];
      if (!row) return null;
      const current = this.toDoc(row, def);
      const next: StoredDoc = applySet(current, set);
      const { _id, isDeleted, deletedAt, createdAt, updatedAt, ...body } = next;
      await tx.query(
        `UPDATE documents SET body = $4, is_deleted = $5, deleted_at = $6, updated_at = $7
         WHERE project_id = $1 AND collection = $2 AND id = $3`,
        [this.projectId, this.name, row.id, JSON.stringify(body), isDeleted, deletedAt, updatedAt],
      );
      void _id;
      void createdAt;
      if (isDeleted !== row.is_deleted) {
        const d = isDeleted ? 1 : -1;
        await tx.query(
          `UPDATE collection_counts SET live = GREATEST(live - $3, 0), trashed = GREATEST(trashed + $3, 0)
           WHERE project_id = $1 AND collection = $2`,
          [this.projectId, this.name, d],
        );
      }
      if (touchesUnique) {
        await tx.query(
          'DELETE FROM document_unique_values WHERE project_id = $1 AND collection = $2 AND document_id = $3',
          [this.projectId, this.name, row.id],
        );
        await this.claimUnique(tx, def, row.id, next);
      }
      await appendOutbox(tx, events);
      return next;
    });
    if (updated) this.ctx.afterCommit();
    return updated;
  }

  /** The documents of one collection an aggregation may read, at most the bound (or a 413). */
  private async readScope(name: string, where: Condition, bounds: AggregationBounds) {
    const params = new Params([this.projectId, name]);
    const { rows } = await this.ctx.pool.query<Row>(
      `SELECT ${COLUMNS} FROM documents WHERE project_id = $1 AND collection = $2 AND ${conditionSql(where, params)}
       ORDER BY created_at, id LIMIT ${params.add(bounds.maxInputDocuments + 1)}`,
      params.values,
    );
    if (rows.length > bounds.maxInputDocuments) throw tooManyDocuments(bounds.maxInputDocuments);
    const def = await this.ctx.catalogue.get(this.projectId, name);
    return rows.map((r) => this.toDoc(r, def) as Record<string, unknown>);
  }

  /**
   * The leading part of the pipeline SQL answers exactly (see pipeline-plan.ts), run in one
   * statement: its rows (documents, groups or a count) and the stages left for the engine.
   * Undefined when nothing past a `$match` translates, or when an input document holds an object
   * or array where the translation needs a scalar (then the documents are read as before).
   */
  private async aggregateInSql(
    pipeline: Stage[],
    scope: Condition,
    bounds: AggregationBounds,
  ): Promise<{ rows: Record<string, unknown>[]; rest: Stage[] } | undefined> {
    const def = await this.def();
    const plan = planPipeline(pipeline, (field) => !touchesDates(def?.schema ?? null, field));
    if (!plan) return undefined;
    const params = this.params();
    const where = (p: Params) => this.scoped(and(scope, ...plan.where), p);
    const sql = pipelineSql(plan, where, params, bounds.maxInputDocuments);
    const { rows } = await this.ctx.pool.query<
      Row & { unsafe: boolean; present: boolean | null; k: unknown; n: number | null } & Record<
          string,
          unknown
        >
    >(sql, params.values);
    if (rows[0]?.unsafe !== false) return undefined;
    if (plan.count !== undefined) {
      const n = rows[0].n ?? 0;
      return { rows: n === 0 ? [] : [{ [plan.count]: n }], rest: plan.rest };
    }
    const present = rows.filter((r) => r.present === true);
    if (present.length > bounds.maxInputDocuments) throw tooManyDocuments(bounds.maxInputDocuments);
    const group = plan.group;
    const out = group
      ? present.map((r) => {
          const row: Record<string, unknown> = { _id: r.k };
          group.accumulators.forEach((a, i) => (row[a.name] = r[`a${i}`]));
          return row;
        })
      : present.map((r) => this.toDoc(r, def) as Record<string, unknown>);
    return { rows: out, rest: plan.rest };
  }

  async aggregate(
    pipeline: Stage[],
    scope: (collection: string) => Condition,
    joined: ReadonlySet<string>,
    bounds: AggregationBounds,
  ): Promise<Record<string, unknown>[]> {
    try {
      const others = new Map<string, Record<string, unknown>[]>();
      for (const name of joined)
        if (!others.has(name)) others.set(name, await this.readScope(name, scope(name), bounds));
      if (joined.size === 0) {
        const translated = await this.aggregateInSql(pipeline, scope(this.name), bounds);
        if (translated) return runPipeline(translated.rows, capped(translated.rest, bounds), others, bounds);
      }
      // The leading $match narrows what is read (it is still applied exactly in-process).
      const pushed = pushableMatch(pipeline);
      const own = pushed ? and(scope(this.name), pushed) : scope(this.name);
      const input = await this.readScope(this.name, own, bounds);
      // At most maxOutputRows rows, as MongoDB's native path gives (a closing $limit).
      return runPipeline(input, capped(pipeline, bounds), others, bounds);
    } catch (e) {
      throw queryError(e);
    }
  }
}

/**
 * A total the per-collection counters answer: every live document, every trashed one, or all of
 * them (the list of a caller without RLS scope or filters). Anything else is counted.
 */
function counterFor(where: Condition): string | undefined {
  if (where.op === 'and' && where.conditions.length === 0) return 'live + trashed';
  if (where.op === 'eq' && where.field === 'isDeleted')
    return where.value === false ? 'live' : where.value === true ? 'trashed' : undefined;
  return undefined;
}

class PgProjectDocuments implements ProjectDocuments {
  constructor(
    private readonly projectId: ProjectId,
    private readonly ctx: DocumentsContext,
  ) {}

  collection(name: string): DocumentCollection {
    return new PgDocumentCollection(this.projectId, name, this.ctx);
  }

  /** Unique constraints: the value rows of every unique path are rebuilt; a clash refuses the definition. */
  async prepare(def: CollectionDef): Promise<void> {
    const paths = uniquePaths(def.schema);
    await withTransaction(this.ctx.pool, async (tx) => {
      await setIndexedPaths(tx, this.projectId, def.name, indexedPaths(def.schema));
      await tx.query('DELETE FROM document_unique_values WHERE project_id = $1 AND collection = $2', [
        this.projectId,
        def.name,
      ]);
      for (const path of paths) {
        try {
          await tx.query(
            `INSERT INTO document_unique_values (project_id, collection, path, value_hash, document_id)
             SELECT project_id, collection, $3, sha256(convert_to((body #> $4::text[])::text, 'UTF8')), id
             FROM documents WHERE project_id = $1 AND collection = $2 AND body #> $4::text[] IS NOT NULL`,
            [this.projectId, def.name, path, path.split('.')],
          );
        } catch (e) {
          if (!isUniqueViolation(e)) throw e;
          throw errors.duplicateValue(`Existing documents have duplicate values of '${path}'`, [
            { path, message: 'must be unique' },
          ]);
        }
      }
    });
  }

  async dropCollection(name: string): Promise<void> {
    await withTransaction(this.ctx.pool, async (tx) => {
      await dropIndexes(tx, this.projectId, name);
      const r = await tx.query('DELETE FROM documents WHERE project_id = $1 AND collection = $2', [
        this.projectId,
        name,
      ]);
      await tx.query('DELETE FROM document_unique_values WHERE project_id = $1 AND collection = $2', [
        this.projectId,
        name,
      ]);
      await tx.query('DELETE FROM collection_counts WHERE project_id = $1 AND collection = $2', [
        this.projectId,
        name,
      ]);
      if ((r.rowCount ?? 0) > 0)
        await tx.query(
          'UPDATE project_document_counts SET documents = GREATEST(documents - $2, 0) WHERE project_id = $1',
          [this.projectId, r.rowCount],
        );
    });
  }

  async dropAll(): Promise<void> {
    await withTransaction(this.ctx.pool, async (tx) => {
      await dropIndexes(tx, this.projectId);
      await tx.query('DELETE FROM documents WHERE project_id = $1', [this.projectId]);
      await tx.query('DELETE FROM document_unique_values WHERE project_id = $1', [this.projectId]);
      await tx.query('DELETE FROM project_document_counts WHERE project_id = $1', [this.projectId]);
      await tx.query('DELETE FROM collection_counts WHERE project_id = $1', [this.projectId]);
    });
  }
}

/**
 * Every project's documents in one partitioned table; isolation is the `project_id = $1` that
 * every statement of this adapter starts with (see PgDocumentCollection.scoped).
 */
export class PgDocumentStore implements DocumentStore {
  private readonly ctx: DocumentsContext;

  constructor(ctx: PgDocumentsContext) {
    this.ctx = { ...ctx, inserts: new InsertBatcher(ctx.fixed) };
  }

  forProject(projectId: ProjectId): PgProjectDocuments {
    return new PgProjectDocuments(projectId, this.ctx);
  }

  async documentCount(projectId: ProjectId): Promise<number> {
    const { rows } = await this.ctx.pool.query<{ documents: string }>(
      'SELECT documents FROM project_document_counts WHERE project_id = $1',
      [projectId],
    );
    return Number(rows[0]?.documents ?? 0);
  }

  /** One indexed query over the trash of every project, whatever the number of collections. */
  async purgeTrash(
    olderThan: Date,
    limit: number,
    eventsFor: (projectId: ProjectId, collection: string, id: DocumentId) => EventEnvelope[],
  ): Promise<PurgeResult> {
    const result = await withTransaction(this.ctx.pool, async (tx) => {
      // SKIP LOCKED: two janitor commands at once (two replicas) take different documents.
      const { rows } = await tx.query<{ project_id: string; collection: string; id: string }>(
        `SELECT project_id, collection, id FROM documents
         WHERE is_deleted AND deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [olderThan, limit + 1],
      );
      const batch = rows.slice(0, limit);
      if (batch.length === 0) return { processed: 0, more: false };
      const keys = [batch.map((r) => r.project_id), batch.map((r) => r.collection), batch.map((r) => r.id)];
      await tx.query(
        `DELETE FROM documents d USING unnest($1::text[], $2::text[], $3::text[]) AS v(p, c, i)
         WHERE d.project_id = v.p AND d.collection = v.c AND d.id = v.i`,
        keys,
      );
      await tx.query(
        `DELETE FROM document_unique_values u USING unnest($1::text[], $2::text[], $3::text[]) AS v(p, c, i)
         WHERE u.project_id = v.p AND u.collection = v.c AND u.document_id = v.i`,
        keys,
      );
      await tx.query(
        `UPDATE project_document_counts c SET documents = GREATEST(c.documents - v.n, 0)
         FROM (SELECT p, count(*) AS n FROM unnest($1::text[]) AS p GROUP BY p) v WHERE c.project_id = v.p`,
        [keys[0]],
      );
      await tx.query(
        `UPDATE collection_counts k SET trashed = GREATEST(k.trashed - v.n, 0)
         FROM (SELECT p, c, count(*) AS n FROM unnest($1::text[], $2::text[]) AS u(p, c) GROUP BY p, c) v
         WHERE k.project_id = v.p AND k.collection = v.c`,
        [keys[0], keys[1]],
      );
      await appendOutbox(
        tx,
        batch.flatMap((r) => eventsFor(trustedProjectId(r.project_id), r.collection, r.id as DocumentId)),
      );
      return { processed: batch.length, more: rows.length > limit };
    });
    if (result.processed > 0) this.ctx.afterCommit();
    return result;
  }
}
