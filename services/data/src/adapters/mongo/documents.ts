import type { Collection, Db, Document, MongoClient } from 'mongodb';
import { AppError, errors, type EventEnvelope, type ProjectId } from '@baas/common';
import {
  HIDE_OUTBOX,
  isDuplicateKeyError,
  pushEvents,
  purgeWithEvents,
  withEvents,
} from '@baas/common/mongo';
import type {
  DocumentCollection,
  DocumentStore,
  Filter,
  FindOptions,
  ProjectDocuments,
  StoredDoc,
} from '../ports';
import { uniquePaths, type CollectionDef } from '../domain/collections/collection';
import { KeyedMutex } from '@baas/common';
import { serializeWrites } from '@baas/common/mongo';

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
  if (code === MAX_TIME_EXPIRED) return errors.badRequest('QUERY_TIMEOUT', 'The query took too long');
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

class MongoDocumentCollection implements DocumentCollection {
  constructor(private readonly coll: Collection<Document>) {}

  async insert(doc: StoredDoc, events: EventEnvelope[]): Promise<StoredDoc> {
    try {
      await this.coll.insertOne(withEvents(doc, events));
    } catch (e) {
      if (isDuplicate(e)) throw await duplicateValue(this.coll, e, doc, doc._id);
      throw writeError(e);
    }
    return doc;
  }

  async findOne(filter: Filter): Promise<StoredDoc | null> {
    try {
      return await this.coll.findOne<StoredDoc>(filter, { projection: HIDE_OUTBOX });
    } catch (e) {
      throw queryError(e);
    }
  }

  async find(filter: Filter, opts: FindOptions): Promise<StoredDoc[]> {
    let cursor = this.coll.find<StoredDoc>(filter, { projection: HIDE_OUTBOX });
    if (opts.sort) cursor = cursor.sort(opts.sort);
    if (opts.skip) cursor = cursor.skip(opts.skip);
    if (opts.limit) cursor = cursor.limit(opts.limit);
    if (opts.maxTimeMS) cursor = cursor.maxTimeMS(opts.maxTimeMS);
    try {
      return await cursor.toArray();
    } catch (e) {
      throw queryError(e);
    }
  }

  async count(filter: Filter, maxTimeMS: number): Promise<number> {
    try {
      return await this.coll.countDocuments(filter, { maxTimeMS });
    } catch (e) {
      throw queryError(e);
    }
  }

  async update(
    filter: Filter,
    set: Record<string, unknown>,
    events: EventEnvelope[],
  ): Promise<StoredDoc | null> {
    try {
      // No projection: FerretDB does not implement one on findAndModify; views drop outbox fields.
      return await this.coll.findOneAndUpdate(filter, pushEvents({ $set: set }, events), {
        returnDocument: 'after',
      });
    } catch (e) {
      if (isDuplicate(e)) throw await duplicateValue(this.coll, e, set, filter._id);
      throw writeError(e);
    }
  }

  async purge(filter: Filter, events: EventEnvelope[]): Promise<boolean> {
    const r = await this.coll.updateOne(filter, purgeWithEvents(events));
    return r.modifiedCount === 1;
  }

  async aggregate(
    pipeline: Record<string, unknown>[],
    maxTimeMS: number,
  ): Promise<Record<string, unknown>[]> {
    try {
      return await this.coll.aggregate(pipeline, { maxTimeMS, allowDiskUse: false }).toArray();
    } catch (e) {
      throw queryError(e);
    }
  }
}

class MongoProjectDocuments implements ProjectDocuments {
  constructor(
    private readonly db: Db,
    private readonly locks: KeyedMutex,
  ) {}

  /** The raw collection with serialized writes: what the outbox relay is given too. */
  mongoCollection(name: string): Collection<Document> {
    return serializeWrites(this.db.collection(name), this.locks);
  }

  collection(name: string): DocumentCollection {
    return new MongoDocumentCollection(this.mongoCollection(name));
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
    const wanted = new Map(uniquePaths(def.schema).map((p) => [`${UNIQUE_PREFIX}${p}`, p]));
    const existing = (await coll.listIndexes().toArray()) as Array<{ name: string }>;
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

  async dropCollection(name: string): Promise<number> {
    const coll = this.db.collection(name);
    const count = await coll.countDocuments({});
    await coll.drop().catch((e: unknown) => {
      // Dropping a collection that was never written to is fine.
      if ((e as { code?: number }).code !== 26) throw e;
    });
    return count;
  }

  async dropAll(): Promise<void> {
    await this.db.dropDatabase();
  }
}

export class MongoDocumentStore implements DocumentStore {
  constructor(
    private readonly client: MongoClient,
    /** MONGO_DB: each project's documents go to `<MONGO_DB>_p_<projectId>`. */
    private readonly dbPrefix: string,
    private readonly locks: KeyedMutex,
  ) {}

  dbName(projectId: ProjectId): string {
    return `${this.dbPrefix}_p_${projectId}`;
  }

  forProject(projectId: ProjectId): MongoProjectDocuments {
    return new MongoProjectDocuments(this.client.db(this.dbName(projectId)), this.locks);
  }
}
