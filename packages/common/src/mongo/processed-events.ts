import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { ClaimResult, ProcessedEvents } from '../events/idempotency';
import { upsertRacing } from './client';

interface ProcessedDoc {
  _id: string;
  /** When the current claim was taken (the lease runs from here); the retention counts from it. */
  at: Date;
  /** The current claim's holder; absent on records written before claims had leases (done). */
  token?: string;
  doneAt?: Date;
  /** A takeover marker (`<key>~<superseded token>`), not a claim. */
  takeover?: true;
}

/**
 * Consumer idempotency on MongoDB. Every step that must have one winner across processes is an
 * insert on a unique `_id` (FerretDB does not isolate read-modify-write updates): the claim
 * itself, and the takeover of an expired claim, which inserts a marker named after the token it
 * supersedes before rewriting the claim. Leases are timed by the process clock.
 */
export class MongoProcessedEvents implements ProcessedEvents {
  private readonly coll: Collection<ProcessedDoc>;
  private indexed?: Promise<unknown>;

  constructor(db: Db) {
    this.coll = db.collection<ProcessedDoc>('processed_events');
  }

  async claim(consumer: string, eventId: string, leaseMs: number): Promise<ClaimResult> {
    const _id = key(consumer, eventId);
    const token = randomUUID();
    try {
      await this.coll.insertOne({ _id, at: new Date(), token });
      return { status: 'claimed', token };
    } catch (e) {
      if (!isDuplicate(e)) throw e;
    }
    const current = await this.coll.findOne({ _id });
    // Released between our insert and this read: let the redelivery claim it.
    if (!current) return { status: 'busy', retryInMs: 0 };
    if (current.doneAt || !current.token) return { status: 'done' };
    const remaining = current.at.getTime() + leaseMs - Date.now();
    if (remaining > 0) return { status: 'busy', retryInMs: remaining };
    try {
      await this.coll.insertOne({
        _id: `${_id}~${current.token}`,
        at: new Date(),
        doneAt: new Date(),
        takeover: true,
      });
    } catch (e) {
      if (!isDuplicate(e)) throw e;
      // Another delivery took this claim over just now.
      return { status: 'busy', retryInMs: leaseMs };
    }
    const r = await this.coll.updateOne(
      { _id, token: current.token, doneAt: { $exists: false } },
      { $set: { at: new Date(), token } },
    );
    if (r.modifiedCount === 1) return { status: 'claimed', token };
    return this.claim(consumer, eventId, leaseMs);
  }

  async complete(consumer: string, eventId: string): Promise<void> {
    const now = new Date();
    // An upsert: a claim released meanwhile by a successor that failed is done all the same.
    await upsertRacing(() =>
      this.coll.updateOne(
        { _id: key(consumer, eventId) },
        { $set: { doneAt: now }, $setOnInsert: { at: now } },
        { upsert: true },
      ),
    );
  }

  async release(consumer: string, eventId: string, token: string): Promise<void> {
    await this.coll.deleteOne({ _id: key(consumer, eventId), token, doneAt: { $exists: false } });
  }

  async prune(olderThan: Date, limit: number): Promise<number> {
    this.indexed ??= this.coll.createIndex({ at: 1 });
    await this.indexed;
    const ids = await this.coll
      .find({ at: { $lt: olderThan } }, { projection: { _id: 1 } })
      .sort({ at: 1 })
      .limit(limit)
      .toArray();
    if (ids.length === 0) return 0;
    const r = await this.coll.deleteMany({ _id: { $in: ids.map((d) => d._id) }, at: { $lt: olderThan } });
    return r.deletedCount;
  }
}

const key = (consumer: string, eventId: string): string => `${consumer}:${eventId}`;

const isDuplicate = (e: unknown): boolean => (e as { code?: number }).code === 11000;
