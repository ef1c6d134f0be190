import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { errors } from './errors';
import { isDuplicateKeyError } from './mongo';

/**
 * A mutex per key, kept in the service's own database. FerretDB 1.x does not isolate
 * read-modify-write updates (concurrent conditional updates, `$inc` with a filter, `$push` on
 * one document can lose each other's effect), while an insert on a unique `_id` is atomic on
 * FerretDB and MongoDB alike: holding the lock is owning the document `{ _id: key }`.
 * A holder that dies leaves a lock that expires after `ttlMs`; release is fenced by a token so
 * a late holder never frees someone else's lock. Within one process, callers of the same key
 * queue in memory first, so the database sees one contender per process.
 */
interface LockDoc {
  _id: string;
  token: string;
  expiresAt: Date;
}

export interface LockOptions {
  ttlMs?: number;
  maxWaitMs?: number;
}

export class MongoLocks {
  private readonly coll: Collection<LockDoc>;
  private readonly local = new Map<string, Promise<unknown>>();
  private readonly ttlMs: number;
  private readonly maxWaitMs: number;

  constructor(db: Db, opts: LockOptions & { collection?: string } = {}) {
    this.coll = db.collection<LockDoc>(opts.collection ?? 'locks');
    this.ttlMs = opts.ttlMs ?? 15_000;
    this.maxWaitMs = opts.maxWaitMs ?? 10_000;
  }

  /** Runs `fn` while holding the lock for `key`; 503 (retry later) when it cannot be had in time. */
  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.local.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.holding(key, fn));
    const tail = run.catch(() => undefined);
    this.local.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.local.get(key) === tail) this.local.delete(key);
    }
  }

  private async holding<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const token = await this.acquire(key);
    try {
      return await fn();
    } finally {
      await this.coll.deleteOne({ _id: key, token }).catch(() => undefined);
    }
  }

  private async acquire(key: string): Promise<string> {
    const token = randomUUID();
    const deadline = Date.now() + this.maxWaitMs;
    let delay = 2;
    for (;;) {
      try {
        await this.coll.insertOne({ _id: key, token, expiresAt: new Date(Date.now() + this.ttlMs) });
        return token;
      } catch (e) {
        if (!isDuplicateKeyError(e)) throw e;
      }
      const held = await this.coll.findOne({ _id: key });
      if (held && held.expiresAt.getTime() < Date.now()) {
        // The holder died: remove exactly that stale lock (fenced by its token) and try again.
        await this.coll.deleteOne({ _id: key, token: held.token });
        continue;
      }
      if (Date.now() > deadline) throw errors.serviceUnavailable('Busy, please retry');
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 50);
    }
  }
}
