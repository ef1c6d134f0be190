import { ObjectId, type Collection, type Db, type Document, type MongoClient } from 'mongodb';
import { AppError, errors, type EventEnvelope, type ProjectId } from '@baas/common';
import {
  HIDE_OUTBOX,
  PURGE_FIELD,
  documentLockKey,
  isDuplicateKeyError,
  pushEvents,
  purgeWithEvents,
  serializeWrites,
  withEvents,
} from '@baas/common/mongo';
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
import type { Condition, DocumentQuery } from '../../domain/documents/query';
import type { Stage } from '../../domain/aggregation/validate-pipeline';
import { capped, runPipeline } from '../pipeline-engine';
import type { MongoDocumentQuota } from './quota';
import type { MongoPendingIndex } from './pending-index';
import { securePipeline } from './secure-pipeline';
import { fromDb, keysetFilter, liveFilter, toDb, toSort } from './translate';
import type { KeyedMutex } from '@baas/common';

const INDEX_PREFIX = 'index_';
const UNIQUE_PREFIX = 'uniq_';
const MAX_TIME_EXPIRED = 50;
const NOT_IMPLEMENTED = 238;

/** MongoDB says 11000; FerretDB reports a unique violation on update as InternalError (code 1). */
function isDuplicate(e: unknown): boolean {
  return (
    isDuplicateKeyError(e) ||
    ((e as { code?: number }).code === 1 && /UNIQUE constraint failed/.test((e as Error).message))
  );
}

function valueAt(doc: Record<string, unknown>, path: string): unknown {
  if (path in doc) return doc[path];
  let cur: unknown = doc;
  for (const seg of path.split('.'))
    cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[seg] : undefined;
  return cur;
}

/**
 * Which unique fields collided. MongoDB says so in the error; FerretDB does not, so the unique
 * indexes are probed with the values that were written.
 */
async function duplicateValue(
  coll: Collection<Document>,
  e: unknown,
  written: Record<string, unknown>,
  self: unknown,
): Promise<AppError> {
  const pattern = (e as { keyPattern?: Record<string, unknown> }).keyPattern;
  let fields = pattern ? Object.keys(pattern) : [];
  if (fields.length === 0) {
    const indexes = (await coll
      .listIndexes()
      .toArray()
      .catch(() => [])) as Array<{ name: string }>;
    for (const ix of indexes) {
      if (!ix.name.startsWith(UNIQUE_PREFIX)) continue;
      const path = ix.name.slice(UNIQUE_PREFIX.length);
      const v = valueAt(written, path);
      if (v === undefined) continue;
      if (
        await coll
          .findOne({ [path]: v, _id: { $ne: self } } as Document, { projection: { _id: 1 } })
          .catch(() => null)
      )
        fields.push(path);
    }
  }
  fields = fields.filter((f) => f !== '_id');
  return errors.duplicateValue(
    'A document with this value already exists',
    fields.length > 0 ? fields.map((path) => ({ path, message: 'must be unique' })) : undefined,
  );
}

/** Database errors a client's query can cause become 4xx, with no server text (it could echo data). */
function queryError(e: unknown): unknown {
  const code = (e as { code?: number } | null)?.code;
  if (code === MAX_TIME_EXPIRED)
    return new AppError(504, 'QUERY_TIMEOUT', 'The query took longer than its time budget');
  if (code === NOT_IMPLEMENTED)
    return errors.badRequest('UNSUPPORTED_BY_DATABASE', 'This operation is not supported by the database');
  if (typeof code === 'number' && (e as { name?: string }).name === 'MongoServerError')
    return errors.badRequest(
      'QUERY_FAILED',
      `The database rejected the query (${(e as { codeName?: string }).codeName ?? code})`,
    );
  return e;
}

function writeError(e: unknown): unknown {
  const code = (e as { code?: number } | null)?.code;
  // Anything else the server refuses about a document's shape is the client's input.
  if (typeof code === 'number' && (e as { name?: string }).name === 'MongoServerError')
    return errors.validation(`The document was rejected (${(e as { codeName?: string }).codeName ?? code})`);
  return e;
}

/** Whether this MongoDB-wire server runs aggregation itself (FerretDB 1.x answers wrongly or not at all). */
export type AggregationMode = 'native' | 'in-process';

export async function detectAggregationMode(client: MongoClient): Promise<AggregationMode> {
  const info = await client.db('admin').command({ buildInfo: 1 });
  return 'ferretdbVersion' in info ? 'in-process' : 'native';
}

export interface MongoDocumentsContext {
  locks: KeyedMutex;
  quota: MongoDocumentQuota;
  aggregation: AggregationMode;
  maxTimeMS: number;
  /** Publish the events of a document just written (the outbox relay). */
  afterWrite: (coll: Collection<Document>, id: ObjectId) => void;
  /** A collection the purge could not sweep: reported, and the sweep goes on with the others. */
  onPurgeError: (projectId: ProjectId, collection: string, err: unknown) => void;
  /** Which documents hold pending events or sit in the trash (background work visits only those). */
  pending: MongoPendingIndex;
}

class MongoDocumentCollection implements DocumentCollection {
  constructor(
    private readonly projectId: ProjectId,
    private readonly coll: Collection<Document>,
    private readonly ctx: MongoDocumentsContext,
    private readonly db: Db,
  ) {}

  async insert(doc: StoredDoc, events: EventEnvelope[], quotaLimit: number): Promise<InsertOutcome> {
    if (!(await this.ctx.quota.reserve(this.projectId, quotaLimit))) return 'quota_exceeded';
    const stored = toDb(doc);
    try {
      await this.ctx.pending.markOutbox(this.projectId, this.coll.collectionName, doc._id);
      await this.coll.insertOne(withEvents(stored, events));
    } catch (e) {
      await this.ctx.quota.release(this.projectId, 1);
      if (isDuplicate(e)) throw await duplicateValue(this.coll, e, stored, stored._id);
      throw writeError(e);
    }
    this.ctx.afterWrite(this.coll, stored._id as ObjectId);
    return 'inserted';
  }

  async findOne(where: Condition): Promise<StoredDoc | null> {
    try {
      const doc = await this.coll.findOne(liveFilter(where), {
        projection: HIDE_OUTBOX,
        maxTimeMS: this.ctx.maxTimeMS,
      });
      return doc ? fromDb(doc) : null;
    } catch (e) {
      throw queryError(e);
    }
  }

  async find(q: DocumentQuery): Promise<StoredDoc[]> {
    const where = q.after
      ? { $and: [liveFilter(q.where), keysetFilter(q.sort, q.after)] }
      : liveFilter(q.where);
    let cursor = this.coll.find(where, { projection: HIDE_OUTBOX }).sort(toSort(q.sort));
    if (q.skip) cursor = cursor.skip(q.skip);
    if (q.limit) cursor = cursor.limit(q.limit);
    cursor = cursor.maxTimeMS(this.ctx.maxTimeMS);
    try {
      return (await cursor.toArray()).map(fromDb);
    } catch (e) {
      throw queryError(e);
    }
  }

  async findWithTotal(q: DocumentQuery): Promise<{ items: StoredDoc[]; total: number }> {
    const [total, items] = await Promise.all([this.count(q.where), this.find(q)]);
    return { items, total };
  }

  async count(where: Condition): Promise<number> {
    try {
      return await this.coll.countDocuments(liveFilter(where), { maxTimeMS: this.ctx.maxTimeMS });
    } catch (e) {
      throw queryError(e);
    }
  }

  async update(
    where: Condition,
    set: Record<string, unknown>,
    events: EventEnvelope[],
  ): Promise<StoredDoc | null> {
    const filter = liveFilter(where);
    let updated: Document | null;
    try {
      // No projection: FerretDB does not implement one on findAndModify; fromDb drops bookkeeping.
      // FerretDB does not isolate updates: writes of one document (and the outbox relay's) queue.
      const id = idOf(where);
      if (id) {
        // Markers first: a crash after them leaves a harmless marker, never an unmarked write.
        const name = this.coll.collectionName;
        await this.ctx.pending.markOutbox(this.projectId, name, id.toHexString());
        if (set.isDeleted === true && set.deletedAt instanceof Date)
          await this.ctx.pending.markTrash(this.projectId, name, id.toHexString(), set.deletedAt);
      }
      const write = () =>
        this.coll.findOneAndUpdate(filter, pushEvents({ $set: set }, events), { returnDocument: 'after' });
      updated = id ? await this.ctx.locks.run(documentLockKey(this.coll, id), write) : await write();
    } catch (e) {
      if (isDuplicate(e)) throw await duplicateValue(this.coll, e, set, idOf(where));
      throw writeError(e);
    }
    if (!updated) return null;
    if (set.isDeleted === false)
      await this.ctx.pending.unmarkTrash(
        this.projectId,
        this.coll.collectionName,
        (updated._id as ObjectId).toHexString(),
      );
    this.ctx.afterWrite(this.coll, updated._id as ObjectId);
    return fromDb(updated);
  }

  async aggregate(
    pipeline: Stage[],
    scope: (collection: string) => Condition,
    joined: ReadonlySet<string>,
    bounds: AggregationBounds,
  ): Promise<Record<string, unknown>[]> {
    try {
      if (this.ctx.aggregation === 'native') {
        const secured = securePipeline(
          pipeline,
          this.coll.collectionName,
          (c) => liveFilter(scope(c)),
          bounds.maxOutputRows,
        );
        return await this.coll
          .aggregate(secured, { maxTimeMS: bounds.timeMs, allowDiskUse: false })
          .toArray();
      }
      // FerretDB: read what the caller may read, then evaluate with MongoDB's semantics here.
      const read = async (name: string) => {
        const docs = await this.db
          .collection(name)
          .find(liveFilter(scope(name)), { projection: HIDE_OUTBOX })
          .limit(bounds.maxInputDocuments + 1)
          .maxTimeMS(bounds.timeMs)
          .toArray();
        if (docs.length > bounds.maxInputDocuments) throw tooManyDocuments(bounds.maxInputDocuments);
        // the driver's documents are this call's own: `_id` is replaced on each
        return docs.map((d) => {
          const out: Record<string, unknown> = d;
          out._id = d._id.toHexString();
          return out;
        });
      };
      const others = new Map<string, Record<string, unknown>[]>();
      for (const name of joined) if (!others.has(name)) others.set(name, await read(name));
      // At most maxOutputRows rows, as the native path's closing $limit gives.
      return runPipeline(await read(this.coll.collectionName), capped(pipeline, bounds), others, bounds);
    } catch (e) {
      throw queryError(e);
    }
  }
}

export function tooManyDocuments(max: number): AppError {
  return errors.payloadTooLarge(
    `The aggregation would read more than ${max} documents; narrow it with $match`,
  );
}

function idOf(where: Condition): ObjectId | undefined {
  const first = where.op === 'and' ? where.conditions[0] : where;
  return first?.op === 'eq' && first.field === '_id' && typeof first.value === 'string'
    ? new ObjectId(first.value)
    : undefined;
}

class MongoProjectDocuments implements ProjectDocuments {
  constructor(
    private readonly projectId: ProjectId,
    private readonly db: Db,
    private readonly ctx: MongoDocumentsContext,
  ) {}

  /** The raw collection with serialized writes: what the outbox relay is given too. */
  mongoCollection(name: string): Collection<Document> {
    return serializeWrites(this.db.collection(name), this.ctx.locks);
  }

  collection(name: string): DocumentCollection {
    return new MongoDocumentCollection(this.projectId, this.mongoCollection(name), this.ctx, this.db);
  }
  async prepare(def: CollectionDef): Promise<void> {
    const coll = this.db.collection(def.name);
    await coll.createIndex({ isDeleted: 1, createdAt: -1, _id: -1 }, { name: 'live_by_created' });
    if (def.rls.enabled) {
      const owner = def.rls.ownerField;
      await coll.createIndex(
        { [owner]: 1, isDeleted: 1, createdAt: -1, _id: -1 },
        { name: `owner_${owner}` },
      );
    }
    const existing = (await coll.listIndexes().toArray()) as Array<{ name: string }>;
    // Declared indexes: an equality filter, the trash flag and the default order in one index.
    const declared = new Map(indexedPaths(def.schema).map((p) => [`${INDEX_PREFIX}${p}`, p]));
    for (const ix of existing)
      if (ix.name.startsWith(INDEX_PREFIX) && !declared.has(ix.name)) await coll.dropIndex(ix.name);
    for (const [name, path] of declared)
      if (!existing.some((ix) => ix.name === name))
        await coll.createIndex({ [path]: 1, isDeleted: 1, createdAt: -1, _id: -1 }, { name });
    const wanted = new Map(uniquePaths(def.schema).map((p) => [`${UNIQUE_PREFIX}${p}`, p]));
    for (const ix of existing)
      if (ix.name.startsWith(UNIQUE_PREFIX) && !wanted.has(ix.name)) await coll.dropIndex(ix.name);
    for (const [name, path] of wanted) {
      if (existing.some((ix) => ix.name === name)) continue;
      try {
        // Sparse: documents without the field do not collide with each other.
        await coll.createIndex({ [path]: 1 }, { name, unique: true, sparse: true });
      } catch (e) {
        const code = (e as { code?: number }).code;
        if (isDuplicate(e) || code === 1 || /UNIQUE|duplicate/i.test((e as Error).message))
          throw errors.duplicateValue(`Existing documents have duplicate values of '${path}'`, [
            { path, message: 'must be unique' },
          ]);
        throw e;
      }
    }
  }

  async dropCollection(name: string): Promise<void> {
    const coll = this.db.collection(name);
    const count = await coll.countDocuments({});
    await coll.drop().catch((e: unknown) => {
      // Dropping a collection that was never written to is fine.
      if ((e as { code?: number }).code !== 26) throw e;
    });
    if (count > 0) await this.ctx.quota.release(this.projectId, count);
    await this.ctx.pending.removeCollection(this.projectId, name);
  }

  async dropAll(): Promise<void> {
    await this.db.dropDatabase();
    await this.ctx.quota.drop(this.projectId);
    await this.ctx.pending.removeProject(this.projectId);
  }
}

/**
 * One database per project (`<db>_p_<projectId>`): physical isolation. Purging walks the
 * registered collections, since MongoDB has no cross-database query.
 */
export class MongoDocumentStore implements DocumentStore {
  constructor(
    private readonly client: MongoClient,
    /** The service's database: each project's documents go to `<db>_p_<projectId>`. */
    private readonly dbPrefix: string,
    private readonly ctx: MongoDocumentsContext,
  ) {}

  dbName(projectId: ProjectId): string {
    return `${this.dbPrefix}_p_${projectId}`;
  }

  forProject(projectId: ProjectId): MongoProjectDocuments {
    return new MongoProjectDocuments(projectId, this.client.db(this.dbName(projectId)), this.ctx);
  }

  async documentCount(projectId: ProjectId): Promise<number> {
    return this.ctx.quota.used(projectId);
  }

  /** Visits only the trash index (trashed before the cutoff), never every collection. */
  async purgeTrash(
    olderThan: Date,
    limit: number,
    eventsFor: (projectId: ProjectId, collection: string, id: DocumentId) => EventEnvelope[],
  ): Promise<PurgeResult> {
    const markers = await this.ctx.pending.trashedBefore(olderThan, limit + 1);
    let processed = 0;
    for (const m of markers.slice(0, limit)) {
      try {
        if (await this.purgeOne(m.projectId, m.collection, m.id as DocumentId, olderThan, eventsFor))
          processed++;
        await this.ctx.pending.dropTrash(m);
      } catch (err) {
        // One document that cannot be purged never stops the purge for every other tenant.
        this.ctx.onPurgeError(m.projectId, m.collection, err);
      }
    }
    return { processed, more: markers.length > limit };
  }

  private async purgeOne(
    projectId: ProjectId,
    name: string,
    id: DocumentId,
    olderThan: Date,
    eventsFor: (projectId: ProjectId, collection: string, id: DocumentId) => EventEnvelope[],
  ): Promise<boolean> {
    const coll = this.forProject(projectId).mongoCollection(name);
    const _id = new ObjectId(id);
    // The document decides: a marker left by a crash or a restore purges nothing.
    const eligible = { _id, isDeleted: true, deletedAt: { $lt: olderThan }, [PURGE_FIELD]: { $ne: true } };
    await this.ctx.pending.markOutbox(projectId, name, id);
    const r = await coll.updateOne(eligible, purgeWithEvents(eventsFor(projectId, name, id)));
    if (r.modifiedCount !== 1) return false;
    await this.ctx.quota.release(projectId, 1);
    this.ctx.afterWrite(coll, _id);
    return true;
  }
}
