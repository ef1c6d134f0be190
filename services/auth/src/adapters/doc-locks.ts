import type { Collection, Document } from 'mongodb';

/**
 * Per-document write serialization inside this process. FerretDB applies updates as
 * read-modify-write without isolation, so two updates of one document at the same moment can
 * lose one of them (measured: parallel $inc, $push racing $pull). The user documents carry
 * outbox events, pushed by the use cases and pulled by the relay: both go through these locks,
 * so an event pushed while the relay cleans up is never lost. (MongoDB would not need it; with
 * several auth replicas on FerretDB the race across processes remains.)
 */
export class DocLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

function keyOf(filter: unknown): string | undefined {
  const id = (filter as { _id?: unknown } | null)?._id;
  if (typeof id === 'string') return id;
  if (typeof id === 'object' && id !== null && 'toHexString' in id && typeof id.toHexString === 'function')
    return String((id as { toHexString: () => string }).toHexString());
  return undefined;
}

/** The collection as the outbox relay sees it: its single-document writes take the document's lock. */
export function lockedCollection(coll: Collection, locks: DocLocks): Collection {
  return new Proxy(coll, {
    get(target, prop, receiver) {
      if (prop === 'updateOne' || prop === 'deleteOne') {
        const original = Reflect.get(target, prop, receiver) as (filter: Document, ...rest: unknown[]) => Promise<unknown>;
        return (filter: Document, ...rest: unknown[]) => {
          const key = keyOf(filter);
          const call = () => original.call(target, filter, ...rest);
          return key ? locks.run(key, call) : call();
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}
