import { ObjectId, type Collection, type Db } from 'mongodb';
import { trustedProjectId, type EventEnvelope, type KeyType, type ProjectId } from '@baas/common';
import { HIDE_OUTBOX, pushEvents, withEvents, type OutboxFields } from '@baas/common/mongo';
import type { Project, StoredKey, StoredSettings } from '../domain/projects/project';
import type { IdGenerator, ProjectRepository } from '../ports';
import { KeyedMutex } from '@baas/common';
import { documentLockKey, serializeWrites } from '@baas/common/mongo';

interface ProjectDoc extends OutboxFields {
  _id: ObjectId;
  name: string;
  settings: StoredSettings;
  keys?: { publishable: StoredKey; secret: StoredKey };
  createdAt: Date;
  updatedAt: Date;
  deletedAt?: Date;
}

const LIVE = { deletedAt: { $exists: false } };

function toProject(d: ProjectDoc): Project | null {
  if (!d.keys || d.deletedAt) return null;
  return {
    id: trustedProjectId(d._id.toHexString()),
    name: d.name,
    settings: d.settings ?? {},
    keys: d.keys,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export class MongoProjectRepository implements ProjectRepository {
  readonly coll: Collection<ProjectDoc>;
  private readonly locks = new KeyedMutex();
  /** For the outbox relay: its writes share the per-document locks (see KeyedMutex). */
  readonly relayCollection: Collection;
  /**
   * `afterWrite`: a write that recorded events hands its document to the relay at once (the
   * periodic pass comes only every 10 s while all is well: project.deleted reached the other
   * services up to 10 s late).
   */
  constructor(
    db: Db,
    private readonly afterWrite: (coll: Collection, id: ObjectId) => void = () => undefined,
  ) {
    this.coll = db.collection<ProjectDoc>('projects');
    this.relayCollection = serializeWrites(this.coll as unknown as Collection, this.locks);
  }

  private relayed(id: ProjectId, events: EventEnvelope[]): void {
    if (events.length > 0) this.afterWrite(this.relayCollection, new ObjectId(id));
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ 'keys.publishable.hash': 1 }, { unique: true, sparse: true });
    await this.coll.createIndex({ 'keys.secret.hash': 1 }, { unique: true, sparse: true });
  }

  async insert(p: Project, events: EventEnvelope[]): Promise<void> {
    await this.coll.insertOne(
      withEvents<ProjectDoc>(
        {
          _id: new ObjectId(p.id),
          name: p.name,
          settings: p.settings,
          keys: p.keys,
          createdAt: p.createdAt,
          updatedAt: p.updatedAt,
        },
        events,
      ),
    );
    this.relayed(p.id, events);
  }

  async findById(id: ProjectId): Promise<Project | null> {
    const d = await this.coll.findOne({ _id: new ObjectId(id), ...LIVE }, { projection: HIDE_OUTBOX });
    return d ? toProject(d) : null;
  }

  async findByKeyHash(hash: string): Promise<{ project: Project; keyType: KeyType } | null> {
    // Two exact index lookups rather than an $or, so each uses its unique index.
    for (const keyType of ['secret', 'publishable'] as const) {
      const d = await this.coll.findOne(
        { [`keys.${keyType}.hash`]: hash, ...LIVE },
        { projection: HIDE_OUTBOX },
      );
      const project = d ? toProject(d) : null;
      if (project) return { project, keyType };
    }
    return null;
  }

  async update(
    id: ProjectId,
    changes: { name?: string; settings?: StoredSettings },
    events: EventEnvelope[],
  ): Promise<Project | null> {
    const $set: Record<string, unknown> = { updatedAt: new Date() };
    if (changes.name !== undefined) $set.name = changes.name;
    if (changes.settings !== undefined) $set.settings = changes.settings;
    // No projection here: FerretDB does not implement findAndModify's `fields`; toProject drops
    // the outbox bookkeeping anyway.
    const d = await this.locks.run(documentLockKey(this.coll, id), () =>
      this.coll.findOneAndUpdate({ _id: new ObjectId(id), ...LIVE }, pushEvents({ $set }, events), {
        returnDocument: 'after',
      }),
    );
    if (d) this.relayed(id, events);
    return d ? toProject(d) : null;
  }

  async replaceKey(id: ProjectId, type: KeyType, key: StoredKey, events: EventEnvelope[]): Promise<boolean> {
    const r = await this.locks.run(documentLockKey(this.coll, id), () =>
      this.coll.updateOne(
        { _id: new ObjectId(id), ...LIVE },
        pushEvents({ $set: { [`keys.${type}`]: key, updatedAt: new Date() } }, events),
      ),
    );
    if (r.matchedCount === 1) this.relayed(id, events);
    return r.matchedCount === 1;
  }

  async list(opts: { limit: number; before?: string; ids?: readonly ProjectId[] }): Promise<Project[]> {
    const filter: Record<string, unknown> = { ...LIVE, keys: { $exists: true } };
    const id: Record<string, unknown> = {};
    if (opts.before) id.$lt = new ObjectId(opts.before);
    if (opts.ids) id.$in = opts.ids.map((p) => new ObjectId(p));
    if (Object.keys(id).length > 0) filter._id = id;
    const docs = await this.coll
      .find(filter, { projection: HIDE_OUTBOX })
      .sort({ _id: -1 })
      .limit(opts.limit)
      .toArray();
    return docs.map(toProject).filter((p): p is Project => p !== null);
  }

  /** Keeps a tombstone (no keys) so the deletion event and later lookups are unambiguous. */
  async markDeleted(id: ProjectId, events: EventEnvelope[]): Promise<boolean> {
    const now = new Date();
    const r = await this.locks.run(documentLockKey(this.coll, id), () =>
      this.coll.updateOne(
        { _id: new ObjectId(id), ...LIVE },
        pushEvents({ $set: { deletedAt: now, updatedAt: now }, $unset: { keys: '' } }, events),
      ),
    );
    if (r.matchedCount === 1) this.relayed(id, events);
    return r.matchedCount === 1;
  }
}

export const objectIdGenerator: IdGenerator = {
  projectId: () => trustedProjectId(new ObjectId().toHexString()),
};
