import { ObjectId, type Collection, type Db } from 'mongodb';
import { type EventEnvelope, type ProjectId, type TimeKeyset } from '@baas/common';
import { HIDE_OUTBOX, OUTBOX_FIELD, PURGE_FIELD, pushEvents, type OutboxFields } from '@baas/common/mongo';
import type {
  IdGenerator,
  MessageOwner,
  MessageRecord,
  MessageRepository,
  MessageStatus,
  StoredMessage,
} from '../ports';

interface MessageDoc extends OutboxFields {
  _id: ObjectId;
  /** null: a platform mail of no project (a console account's password reset). */
  projectId: string | null;
  to: string;
  templateKey?: string;
  system: boolean;
  provider: string;
  status: MessageStatus;
  attempts?: number;
  error?: string;
  causedBy?: string;
  createdAt: Date;
  finishedAt?: Date;
}

function toMessage(d: MessageDoc): StoredMessage {
  return {
    id: d._id.toHexString(),
    to: d.to,
    system: d.system,
    provider: d.provider,
    status: d.status,
    createdAt: d.createdAt,
    ...(d.templateKey !== undefined ? { templateKey: d.templateKey } : {}),
    ...(d.causedBy !== undefined ? { causedBy: d.causedBy } : {}),
    ...(d.attempts !== undefined ? { attempts: d.attempts } : {}),
    ...(d.error !== undefined ? { error: d.error } : {}),
  };
}

/**
 * Message records (metadata only: the body is not kept). The final status and its event are
 * one update; `afterEvents` lets the process publish them at once instead of at the next pass.
 */
export class MongoMessageRepository implements MessageRepository {
  readonly coll: Collection<MessageDoc>;
  constructor(
    db: Db,
    private readonly afterEvents: (id: ObjectId) => void = () => undefined,
  ) {
    this.coll = db.collection<MessageDoc>('messages');
  }

  async ensureIndexes(): Promise<void> {
    // The sent-mail log's order (the id breaks ties within a millisecond).
    await this.coll.createIndex({ projectId: 1, createdAt: -1, _id: -1 });
  }

  async create(owner: MessageOwner, r: MessageRecord): Promise<void> {
    const doc: MessageDoc = {
      _id: new ObjectId(r.id),
      projectId: owner,
      to: r.to,
      system: r.system,
      provider: r.provider,
      status: r.status,
      createdAt: r.createdAt,
    };
    if (r.templateKey !== undefined) doc.templateKey = r.templateKey;
    if (r.causedBy !== undefined) doc.causedBy = r.causedBy;
    await this.coll.insertOne(doc);
  }

  private async finish(
    owner: MessageOwner,
    id: string,
    $set: Partial<MessageDoc>,
    events: EventEnvelope[],
  ): Promise<void> {
    const _id = new ObjectId(id);
    const update = { $set: { ...$set, finishedAt: new Date() } };
    // A platform mail has no event to carry (and an empty outbox field would wait for the relay forever).
    if (events.length === 0) {
      await this.coll.updateOne({ _id, projectId: owner }, update);
      return;
    }
    await this.coll.updateOne({ _id, projectId: owner }, pushEvents(update, events));
    this.afterEvents(_id);
  }

  markSent(owner: MessageOwner, id: string, attempts: number, events: EventEnvelope[]): Promise<void> {
    return this.finish(owner, id, { status: 'sent', attempts }, events);
  }

  markFailed(
    owner: MessageOwner,
    id: string,
    attempts: number,
    reason: string,
    events: EventEnvelope[],
  ): Promise<void> {
    return this.finish(owner, id, { status: 'failed', attempts, error: reason }, events);
  }

  async findById(owner: MessageOwner, id: string): Promise<StoredMessage | null> {
    if (!ObjectId.isValid(id)) return null;
    const d = await this.coll.findOne({ _id: new ObjectId(id), projectId: owner });
    return d ? toMessage(d) : null;
  }

  async list(owner: MessageOwner, page: { limit: number; before?: TimeKeyset }): Promise<StoredMessage[]> {
    const b = page.before;
    const after = b
      ? { $or: [{ createdAt: { $lt: b.at } }, { createdAt: b.at, _id: { $lt: new ObjectId(b.id) } }] }
      : {};
    const docs = await this.coll
      .find({ projectId: owner, [PURGE_FIELD]: { $exists: false }, ...after }, { projection: HIDE_OUTBOX })
      .sort({ createdAt: -1, _id: -1 })
      .limit(page.limit)
      .toArray();
    return docs.map(toMessage);
  }

  /** Records whose events are still pending are left to the relay, which deletes them after. */
  async deleteAllOfProject(projectId: ProjectId): Promise<void> {
    await this.coll.updateMany(
      { projectId, [OUTBOX_FIELD]: { $exists: true } },
      { $set: { [PURGE_FIELD]: true } },
    );
    await this.coll.deleteMany({ projectId, [OUTBOX_FIELD]: { $exists: false } });
  }
}

export const objectIdGenerator: IdGenerator = {
  messageId: () => new ObjectId().toHexString(),
};
