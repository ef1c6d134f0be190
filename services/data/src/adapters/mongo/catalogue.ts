import type { Collection, Db } from 'mongodb';
import { trustedProjectId, type EventEnvelope, type ProjectId } from '@baas/common';
import {
  HIDE_OUTBOX,
  isDuplicateKeyError,
  PURGE_FIELD,
  purgeWithEvents,
  withEvents,
  type OutboxFields,
} from '@baas/common/mongo';
import type { CollectionCatalogue } from '../../ports';
import type { CollectionDef, CollectionSchema, RlsConfig } from '../../domain/collections/collection';
import { KeyedMutex } from '@baas/common';
import { serializeWrites } from '@baas/common/mongo';

interface CatalogueDoc extends OutboxFields {
  _id: string;
  projectId: string;
  name: string;
  schema: CollectionSchema | null;
  rls: RlsConfig;
  createdAt: Date;
  updatedAt: Date;
}

const LIVE = { [PURGE_FIELD]: { $ne: true } };
/** Definitions are read on every data request; a short cache, cleared locally on every change. */
const CACHE_TTL_MS = 2000;

function toDef(d: CatalogueDoc): CollectionDef {
  return {
    projectId: trustedProjectId(d.projectId),
    name: d.name,
    schema: d.schema ?? null,
    rls: d.rls,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export class MongoCollectionCatalogue implements CollectionCatalogue {
  readonly coll: Collection<CatalogueDoc>;
  private readonly cache = new Map<string, { def: CollectionDef | null; at: number }>();

  constructor(db: Db, locks: KeyedMutex) {
    this.coll = serializeWrites(db.collection<CatalogueDoc>('collections'), locks);
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1, name: 1 });
  }

  private key(projectId: ProjectId, name: string): string {
    return `${projectId}:${name}`;
  }

  async get(
    projectId: ProjectId,
    name: string,
    opts: { fresh?: boolean } = {},
  ): Promise<CollectionDef | null> {
    const key = this.key(projectId, name);
    const hit = opts.fresh ? undefined : this.cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.def;
    const d = await this.coll.findOne({ _id: key, ...LIVE }, { projection: HIDE_OUTBOX });
    const def = d ? toDef(d) : null;
    this.cache.set(key, { def, at: Date.now() });
    if (this.cache.size > 10_000) this.cache.clear();
    return def;
  }

  async list(projectId: ProjectId): Promise<CollectionDef[]> {
    const docs = await this.coll
      .find({ projectId, ...LIVE }, { projection: HIDE_OUTBOX })
      .sort({ name: 1 })
      .toArray();
    return docs.map(toDef);
  }

  async save(def: CollectionDef, events: EventEnvelope[]): Promise<boolean> {
    const key = this.key(def.projectId, def.name);
    this.cache.delete(key);
    const fields = {
      projectId: def.projectId,
      name: def.name,
      schema: def.schema,
      rls: def.rls,
      createdAt: def.createdAt,
      updatedAt: def.updatedAt,
    };
    const r = await this.coll.updateOne(
      { _id: key, ...LIVE },
      { $set: fields, $push: { _outbox: { $each: events } } },
    );
    if (r.matchedCount === 1) return false;
    // A leftover entry awaiting purge after a delete is replaced by the new registration.
    await this.coll.deleteOne({ _id: key, [PURGE_FIELD]: true });
    try {
      await this.coll.insertOne(withEvents<CatalogueDoc>({ _id: key, ...fields }, events));
    } catch (e) {
      // A concurrent registration of the same name won: this one becomes a replace.
      if (!isDuplicateKeyError(e)) throw e;
      await this.coll.updateOne(
        { _id: key, ...LIVE },
        { $set: fields, $push: { _outbox: { $each: events } } },
      );
      this.cache.delete(key);
      return false;
    }
    this.cache.delete(key);
    return true;
  }

  async remove(projectId: ProjectId, name: string, events: EventEnvelope[]): Promise<boolean> {
    const key = this.key(projectId, name);
    this.cache.delete(key);
    const r = await this.coll.updateOne({ _id: key, ...LIVE }, purgeWithEvents(events));
    this.cache.delete(key);
    return r.matchedCount === 1;
  }

  async removeProject(projectId: ProjectId): Promise<void> {
    // A definition whose events are not relayed yet (a collection.deleted, an audit entry just
    // before the project went) is left to the relay, which publishes them and then deletes it;
    // deleting it here lost them. The rest go now.
    await this.coll.updateMany({ projectId, _outbox: { $exists: true } }, { $set: { [PURGE_FIELD]: true } });
    await this.coll.deleteMany({ projectId, _outbox: { $exists: false } });
    for (const k of this.cache.keys()) if (k.startsWith(`${projectId}:`)) this.cache.delete(k);
  }

  async all(): Promise<Array<{ projectId: ProjectId; name: string }>> {
    const docs = await this.coll.find({ ...LIVE }, { projection: { projectId: 1, name: 1 } }).toArray();
    return docs.map((d) => ({ projectId: trustedProjectId(d.projectId), name: d.name }));
  }
}
