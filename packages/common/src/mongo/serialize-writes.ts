import type { Collection, Document } from 'mongodb';
import type { KeyedMutex } from '../keyed-mutex';

/** The lock key of one document: its collection's namespace and its id. */
export function documentLockKey(coll: { namespace: string }, id: string | { toHexString(): string }): string {
  return `${coll.namespace}:${typeof id === 'string' ? id : id.toHexString()}`;
}

/** The key for a filter that names one document by `_id`; undefined for anything else. */
function filterLockKey(coll: { namespace: string }, id: unknown): string | undefined {
  if (typeof id === 'string') return documentLockKey(coll, id);
  if (typeof id === 'object' && id !== null && 'toHexString' in id && typeof id.toHexString === 'function')
    return documentLockKey(coll, id as { toHexString(): string });
  return undefined;
}

const SERIALIZED = new Set(['updateOne', 'deleteOne', 'findOneAndUpdate']);

/**
 * A view of a collection whose single-document writes (filter by `_id`) take that document's
 * lock, so they serialise with every other write of the document through the same mutex: use it
 * for the repository's own writes and give it to the outbox relay.
 */
export function serializeWrites<T extends Document>(coll: Collection<T>, locks: KeyedMutex): Collection<T> {
  return new Proxy(coll, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !SERIALIZED.has(prop) || typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => Promise<unknown>;
      return (filter: Record<string, unknown> | undefined, ...rest: unknown[]) => {
        const key = filterLockKey(target, filter?._id);
        if (key === undefined) return fn.call(target, filter, ...rest);
        return locks.run(key, () => fn.call(target, filter, ...rest));
      };
    },
  });
}
