import { ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { type EventEnvelope, type ProjectId } from '@baas/common';
import {
  HIDE_OUTBOX,
  isDuplicateKeyError,
  pushEvents,
  purgeWithEvents,
  withEvents,
  type OutboxFields,
} from '@baas/common/mongo';
import { DuplicateEmailError, type CodeEffects, type NewUser, type UserRepository } from '../ports';
import { normalizeEmail, type CodePurpose, type StoredCode, type User } from '../domain/users/user';
import { KeyedMutex } from '@baas/common';
import { documentLockKey, serializeWrites } from '@baas/common/mongo';

interface UserDoc extends OutboxFields {
  _id: ObjectId;
  projectId: string;
  email: string;
  emailLower: string;
  passwordHash: string;
  emailVerified: boolean;
  profile: Record<string, unknown>;
  codes?: Partial<Record<CodePurpose, StoredCode>>;
  createdAt: Date;
  updatedAt: Date;
  passwordChangedAt?: Date;
}

/** Called after a write that recorded events, to publish them at once (the outbox relay). */
export type AfterEventWrite = (coll: Collection, id: unknown) => void;

const PROJECTION = { ...HIDE_OUTBOX };
/** A deleted user waiting for its event to go out is gone for every read. */
const LIVE = { _purgeAfterRelay: { $exists: false } };

function toUser(d: UserDoc): User {
  return {
    id: d._id.toHexString(),
    projectId: d.projectId as ProjectId,
    email: d.email,
    emailVerified: d.emailVerified === true,
    passwordHash: d.passwordHash,
    profile: d.profile ?? {},
    codes: d.codes ?? {},
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

function oid(id: string): ObjectId | null {
  return /^[a-f0-9]{24}$/.test(id) ? new ObjectId(id) : null;
}

/** Users of every project in one collection; every query carries the project id. */
export class MongoUserRepository implements UserRepository {
  readonly coll: Collection<UserDoc>;
  private readonly locks = new KeyedMutex();
  /** What the outbox relay must use for this collection (its writes share the document locks). */
  readonly relayCollection: Collection;
  constructor(
    db: Db,
    private readonly afterWrite: AfterEventWrite = () => undefined,
  ) {
    this.coll = db.collection<UserDoc>('users');
    this.relayCollection = serializeWrites(this.coll as unknown as Collection, this.locks);
  }

  private locked<T>(id: ObjectId, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(documentLockKey(this.coll, id), fn);
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ projectId: 1, emailLower: 1 }, { unique: true });
    await this.coll.createIndex({ projectId: 1, 'profile.username': 1 });
    await this.coll.createIndex({ projectId: 1, 'codes.verify_email.tokenHash': 1 });
    await this.coll.createIndex({ projectId: 1, 'codes.reset_password.tokenHash': 1 });
  }

  private written(id: ObjectId, events: EventEnvelope[]): void {
    if (events.length > 0) this.afterWrite(this.relayCollection, id);
  }

  async insert(projectId: ProjectId, u: NewUser, events: EventEnvelope[]): Promise<User> {
    const doc: UserDoc = {
      _id: new ObjectId(u.id),
      projectId,
      email: u.email,
      emailLower: normalizeEmail(u.email),
      passwordHash: u.passwordHash,
      emailVerified: false,
      profile: u.profile,
      codes: u.codes,
      createdAt: u.createdAt,
      updatedAt: u.createdAt,
    };
    try {
      await this.coll.insertOne(withEvents(doc, events));
    } catch (e) {
      if (isDuplicateKeyError(e)) throw new DuplicateEmailError('email taken');
      throw e;
    }
    this.written(doc._id, events);
    return toUser(doc);
  }

  async findById(projectId: ProjectId, userId: string): Promise<User | null> {
    const _id = oid(userId);
    if (!_id) return null;
    const d = await this.coll.findOne({ _id, projectId, ...LIVE }, { projection: PROJECTION });
    return d ? toUser(d) : null;
  }

  async findByEmail(projectId: ProjectId, email: string): Promise<User | null> {
    const d = await this.coll.findOne(
      { projectId, emailLower: normalizeEmail(email) },
      { projection: PROJECTION },
    );
    return d ? toUser(d) : null;
  }

  async findByProfileField(
    projectId: ProjectId,
    key: string,
    value: unknown,
    exceptUserId?: string,
  ): Promise<User | null> {
    const filter: Document = { projectId, [`profile.${key}`]: { $eq: value }, ...LIVE };
    const except = exceptUserId ? oid(exceptUserId) : null;
    if (except) filter._id = { $ne: except };
    const d = await this.coll.findOne(filter, { projection: PROJECTION, sort: { createdAt: 1 } });
    return d ? toUser(d) : null;
  }

  async updateProfile(
    projectId: ProjectId,
    userId: string,
    set: Record<string, unknown>,
    unset: string[],
    events: EventEnvelope[],
  ): Promise<User | null> {
    const _id = oid(userId);
    if (!_id) return null;
    const update: Document = { $set: { updatedAt: new Date() } };
    for (const [k, v] of Object.entries(set)) (update.$set as Document)[`profile.${k}`] = v;
    if (unset.length > 0) update.$unset = Object.fromEntries(unset.map((k) => [`profile.${k}`, '']));
    // No projection on findAndModify: FerretDB does not implement it (toUser picks the fields).
    const d = await this.locked(_id, () =>
      this.coll.findOneAndUpdate({ _id, projectId, ...LIVE }, pushEvents(update, events), {
        returnDocument: 'after',
      }),
    );
    if (d) this.written(_id, events);
    return d ? toUser(d) : null;
  }

  async replacePasswordHash(
    projectId: ProjectId,
    userId: string,
    expectedHash: string,
    newHash: string,
    events: EventEnvelope[],
  ): Promise<boolean> {
    const _id = oid(userId);
    if (!_id) return false;
    const now = new Date();
    const r = await this.locked(_id, () =>
      this.coll.updateOne(
        { _id, projectId, passwordHash: expectedHash },
        pushEvents({ $set: { passwordHash: newHash, updatedAt: now, passwordChangedAt: now } }, events),
      ),
    );
    if (r.matchedCount === 1) this.written(_id, events);
    return r.matchedCount === 1;
  }

  async setCode(
    projectId: ProjectId,
    userId: string,
    purpose: CodePurpose,
    code: StoredCode,
    events: EventEnvelope[],
    notIssuedAfter: Date,
  ): Promise<boolean> {
    const _id = oid(userId);
    if (!_id) return false;
    const field = `codes.${purpose}`;
    const r = await this.locked(_id, () =>
      this.coll.updateOne(
        {
          _id,
          projectId,
          $or: [
            { [`${field}.createdAt`]: { $exists: false } },
            { [`${field}.createdAt`]: { $lte: notIssuedAfter } },
          ],
        },
        pushEvents({ $set: { [field]: code } }, events),
      ),
    );
    if (r.matchedCount === 1) this.written(_id, events);
    return r.matchedCount === 1;
  }

  async findByCodeToken(
    projectId: ProjectId,
    purpose: CodePurpose,
    tokenHash: string,
    now: Date,
  ): Promise<User | null> {
    const field = `codes.${purpose}`;
    const d = await this.coll.findOne(
      { projectId, [`${field}.tokenHash`]: tokenHash, [`${field}.expiresAt`]: { $gt: now } },
      { projection: PROJECTION },
    );
    return d ? toUser(d) : null;
  }

  async consumeCode(
    projectId: ProjectId,
    userId: string,
    purpose: CodePurpose,
    tokenHash: string,
    effects: CodeEffects,
    events: EventEnvelope[],
  ): Promise<User | null> {
    const _id = oid(userId);
    if (!_id) return null;
    const now = new Date();
    const $set: Document = { updatedAt: now };
    if (effects.emailVerified) $set.emailVerified = true;
    if (effects.passwordHash) {
      $set.passwordHash = effects.passwordHash;
      $set.passwordChangedAt = now;
    }
    const field = `codes.${purpose}`;
    const d = await this.locked(_id, () =>
      this.coll.findOneAndUpdate(
        { _id, projectId, [`${field}.tokenHash`]: tokenHash, [`${field}.expiresAt`]: { $gt: now } },
        pushEvents({ $set, $unset: { [field]: '' } }, events),
        { returnDocument: 'after' },
      ),
    );
    if (d) this.written(_id, events);
    return d ? toUser(d) : null;
  }

  /** Hard delete with its event: the relay removes the document once user.deleted is out. */
  async delete(projectId: ProjectId, userId: string, events: EventEnvelope[]): Promise<boolean> {
    const _id = oid(userId);
    if (!_id) return false;
    const now = new Date();
    // The email is freed at once (a new signup may reuse it) while the tombstone waits for the relay.
    const update = purgeWithEvents(events);
    (update.$set as Document).emailLower = `deleted:${_id.toHexString()}`;
    (update.$set as Document).updatedAt = now;
    update.$unset = { codes: '', passwordHash: '' };
    const r = await this.locked(_id, () =>
      this.coll.updateOne({ _id, projectId, _purgeAfterRelay: { $exists: false } }, update),
    );
    if (r.matchedCount === 1) this.written(_id, events);
    return r.matchedCount === 1;
  }

  async list(
    projectId: ProjectId,
    opts: { limit: number; before?: string; emailContains?: string },
  ): Promise<User[]> {
    const filter: Record<string, unknown> = { projectId, ...LIVE };
    if (opts.before) filter._id = { $lt: new ObjectId(opts.before) };
    // A literal substring: every regex metacharacter of the search is escaped.
    if (opts.emailContains)
      filter.emailLower = { $regex: opts.emailContains.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') };
    const docs = await this.coll
      .find(filter, { projection: { ...PROJECTION, codes: 0 } })
      .sort({ _id: -1 })
      .limit(opts.limit)
      .toArray();
    return docs.map(toUser);
  }

  async deleteProject(projectId: ProjectId): Promise<number> {
    const r = await this.coll.deleteMany({ projectId });
    return r.deletedCount;
  }

  async purgeExpiredCodes(cutoff: Date, limit: number): Promise<number> {
    let done = 0;
    for (const purpose of ['verify_email', 'reset_password'] as const) {
      if (done >= limit) break;
      const field = `codes.${purpose}`;
      const ids = await this.coll
        .find({ [`${field}.expiresAt`]: { $lt: cutoff } }, { projection: { _id: 1 } })
        .limit(limit - done)
        .toArray();
      if (ids.length === 0) continue;
      // One document at a time, each under its lock (see KeyedMutex).
      for (const { _id } of ids)
        await this.locked(_id, () =>
          this.coll.updateOne({ _id, [`${field}.expiresAt`]: { $lt: cutoff } }, { $unset: { [field]: '' } }),
        );
      done += ids.length;
    }
    return done;
  }
}
