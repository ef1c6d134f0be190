import type { Collection, Document } from 'mongodb';
import type { Logger } from '../logger';
import type { EventPublisher } from '../events/bus';
import type { EventEnvelope } from '../events/envelope';
import { RelayLoop } from '../events/relay-loop';

/**
 * Transactional outbox without transactions: a pending event is stored inside the very document
 * whose write causes it, in the same single-document write (atomic on FerretDB and MongoDB).
 * The relay publishes pending events with the event id as the JetStream message id (so a
 * re-publish after a crash is dropped as a duplicate) and then removes them from the document.
 * A document marked `_purgeAfterRelay` is deleted once its events are out: that is how a hard
 * delete still gets its event.
 */
export const OUTBOX_FIELD = '_outbox';
export const PURGE_FIELD = '_purgeAfterRelay';

export interface OutboxFields {
  _outbox?: EventEnvelope[];
  _purgeAfterRelay?: boolean;
}

/** For an insert: the document carrying its events. */
export function withEvents<T extends Document>(doc: T, events: EventEnvelope[]): T & OutboxFields {
  return { ...doc, [OUTBOX_FIELD]: events };
}

/** For an update: merge into the update so the events are written with it. */
export function pushEvents(update: Document, events: EventEnvelope[]): Document {
  const push = { ...((update.$push as Document | undefined) ?? {}), [OUTBOX_FIELD]: { $each: events } };
  return { ...update, $push: push };
}

/** For a hard delete: mark the document, attach the event; the relay deletes it after publishing. */
export function purgeWithEvents(events: EventEnvelope[]): Document {
  return pushEvents({ $set: { [PURGE_FIELD]: true } }, events);
}

/** Mongo projection that hides outbox bookkeeping from API responses. */
export const HIDE_OUTBOX = { [OUTBOX_FIELD]: 0, [PURGE_FIELD]: 0 } as const;

export function stripOutbox<T extends Document>(doc: T): Omit<T, '_outbox' | '_purgeAfterRelay'> {
  const { _outbox, _purgeAfterRelay, ...rest } = doc as T & OutboxFields;
  void _outbox;
  void _purgeAfterRelay;
  return rest;
}

interface RelayOptions {
  /** Collections that may hold pending events; a function so per-project collections can be found. */
  collections: () => Promise<Collection[]> | Collection[];
  publisher: EventPublisher;
  logger: Logger;
  intervalMs?: number;
  batchSize?: number;
}

export class OutboxRelay extends RelayLoop {
  /**
   * Documents this process is relaying now, by collection and id: a document is relayed by one
   * call at a time, so the immediate relay and a pass never both publish what they read
   * (JetStream would drop the second copy, at the cost of a publish each).
   */
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly opts: RelayOptions) {
    super(opts.logger, opts.intervalMs ?? 1000);
  }

  /**
   * Publishes one document's pending events right after the write that recorded them, so the
   * usual latency is one publish; the periodic pass only catches what a crash left behind.
   * Failures are left to the periodic pass.
   */
  async relayOne(coll: Collection, id: unknown): Promise<void> {
    try {
      await this.relayExclusively(coll, id);
    } catch (err) {
      this.opts.logger.warn({ err }, 'immediate outbox relay failed; the periodic pass will retry');
      this.observer?.relayFailed();
      this.retrySoon();
    }
  }

  /**
   * Documents holding pending events, counted up to a bound per collection: the query the
   * periodic pass runs every second anyway, read at most every few seconds.
   */
  protected override async backlog(): Promise<number> {
    let n = 0;
    for (const coll of await this.opts.collections())
      n += await coll.countDocuments({ [OUTBOX_FIELD]: { $exists: true } }, { limit: 100_000 });
    return n;
  }

  protected async pass(): Promise<void> {
    const collections = await this.opts.collections();
    for (const coll of collections) {
      const pending = await coll
        .find({ [OUTBOX_FIELD]: { $exists: true } }, { projection: RELAYED_FIELDS })
        .limit(this.opts.batchSize ?? 100)
        .toArray();
      for (const doc of pending) {
        const busy = this.inFlight.get(inFlightKey(coll, doc._id));
        if (!busy) {
          await this.relayExclusively(coll, doc._id, doc);
          continue;
        }
        // The immediate relay has it: it reads the document again when done (it may have read it
        // before what this pass saw), and the pass waits, so that what was pending when the pass
        // began is out when it ends (flush). Had it failed, the pass relays the document itself.
        busy.again = true;
        if (!(await settledWell(busy.done))) await this.relayExclusively(coll, doc._id);
      }
    }
  }

  /**
   * Relays the document unless this process is relaying it already; then that relay reads it
   * once more when it is done (events pushed meanwhile go out at once, not at the next pass).
   * `read`: the document as a pass just read it.
   */
  private relayExclusively(coll: Collection, id: unknown, read?: Document): Promise<void> {
    const key = inFlightKey(coll, id);
    const busy = this.inFlight.get(key);
    if (busy) {
      busy.again = true;
      return Promise.resolve();
    }
    const state: InFlight = { again: false, done: Promise.resolve() };
    this.inFlight.set(key, state);
    state.done = (async () => {
      try {
        let doc = read ?? (await pendingOf(coll, id));
        while (doc) {
          await this.relayDocument(coll, doc);
          if (!state.again) return;
          state.again = false;
          doc = await pendingOf(coll, id);
        }
      } finally {
        this.inFlight.delete(key);
      }
    })();
    return state.done;
  }

  private async relayDocument(coll: Collection, doc: Document): Promise<void> {
    const id: unknown = doc._id;
    const events = (doc[OUTBOX_FIELD] ?? []) as EventEnvelope[];
    for (const e of events) await this.opts.publisher.publish(e);
    if (doc[PURGE_FIELD] === true) {
      await coll.deleteOne({ _id: id, [PURGE_FIELD]: true } as Document);
      return;
    }
    // $pullAll of the exact entries read: events pushed meanwhile stay. (FerretDB ignores a
    // $pull with a condition, so no `{ id: { $in } }` here.)
    await coll.updateOne({ _id: id } as Document, { $pullAll: { [OUTBOX_FIELD]: events } } as Document);
    await coll.updateOne({ _id: id, [OUTBOX_FIELD]: { $size: 0 } } as Document, {
      $unset: { [OUTBOX_FIELD]: '' },
    });
  }
}

/** A document being relayed: asked for again meanwhile, and the relay's end. */
interface InFlight {
  again: boolean;
  done: Promise<void>;
}

/** True when the promise resolves, false when it rejects (its error is the other caller's). */
function settledWell(p: Promise<void>): Promise<boolean> {
  return p.then(
    () => true,
    () => false,
  );
}

function inFlightKey(coll: Collection, id: unknown): string {
  return `${coll.namespace}\u0000${String(id)}`;
}

/** What a relay reads of a document. */
const RELAYED_FIELDS = { _id: 1, [OUTBOX_FIELD]: 1, [PURGE_FIELD]: 1 };

/** The document with its pending events, or null when it has none (or is gone). */
function pendingOf(coll: Collection, id: unknown): Promise<Document | null> {
  return coll.findOne({ _id: id, [OUTBOX_FIELD]: { $exists: true } } as Document, {
    projection: RELAYED_FIELDS,
  });
}
