import type { Collection, Db, Document } from 'mongodb';
import type { EventEnvelope, KeyedMutex } from '@baas/common';
import { documentLockKey, isDuplicateKeyError, purgeWithEvents, type OutboxFields } from '@baas/common/mongo';

/** Called after a write that recorded events, to publish them at once (the outbox relay). */
export type AfterEventWrite = (coll: Collection, id: string) => void;

/** Documents waiting for the relay before they are deleted are gone for every read. */
export const LIVE = { _purgeAfterRelay: { $exists: false } } as const;

/**
 * Removes one console document (a membership, an invitation, an account) under its lock. A
 * document still carrying events, or removed with events of its own, becomes a tombstone the
 * relay deletes once they are out (an event is never lost to a delete); any other is deleted at
 * once. False when there was no live document.
 */
export async function removeDocument<T extends Document & OutboxFields & { _id: string }>(
  coll: Collection<T>,
  locks: KeyedMutex,
  id: string,
  events: EventEnvelope[],
  /** Hands the tombstone to the relay (through the collection view that shares the locks). */
  relay: (id: string) => void,
  tombstone: Document = {},
): Promise<boolean> {
  const raw = coll as unknown as Collection<{ _id: string; _outbox?: unknown[] }>;
  return locks.run(documentLockKey(coll, id), async () => {
    const doc = await raw.findOne({ _id: id, ...LIVE }, { projection: { _id: 1, _outbox: 1 } });
    if (!doc) return false;
    const pending = Array.isArray(doc._outbox) && doc._outbox.length > 0;
    if (events.length === 0 && !pending) {
      await raw.deleteOne({ _id: id });
      return true;
    }
    const update = purgeWithEvents(events);
    update.$set = { ...(update.$set as Document), ...tombstone };
    await raw.updateOne({ _id: id }, update);
    relay(id);
    return true;
  });
}

interface ClaimDoc {
  _id: string;
  expiresAt: Date;
}

/**
 * Single use on MongoDB/FerretDB: a unique-key insert (`invitation:<id>`, `reset:<digest>`) is the
 * one write both make atomic under concurrency, so exactly one caller gets it.
 */
export class MongoConsoleClaims {
  readonly coll: Collection<ClaimDoc>;
  constructor(db: Db) {
    this.coll = db.collection<ClaimDoc>('console_claims');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ expiresAt: 1 });
  }

  async claim(id: string, expiresAt: Date): Promise<boolean> {
    try {
      await this.coll.insertOne({ _id: id, expiresAt });
      return true;
    } catch (e) {
      if (isDuplicateKeyError(e)) return false;
      throw e;
    }
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    if (limit <= 0) return 0;
    const ids = await this.coll
      .find({ expiresAt: { $lt: cutoff } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (ids.length > 0) await this.coll.deleteMany({ _id: { $in: ids.map((d) => d._id) } });
    return ids.length;
  }
}
