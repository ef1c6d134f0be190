import type { Collection, Document } from 'mongodb';

/**
 * Serializes async work per key inside this process. FerretDB applies an update as
 * read-modify-write without isolation (30 concurrent `$inc` on one document lose most of them),
 * so every write to one document, and every quota change of one project, goes through here.
 * On MongoDB the single-document writes are atomic anyway and this only costs a map lookup.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** A single document's id (ObjectId or string); anything else (an operator) is not serialized. */
function idKey(id: unknown): string | undefined {
  if (typeof id === 'string') return id;
  if (typeof id === 'object' && id !== null && 'toHexString' in id) return (id as { toHexString(): string }).toHexString();
  return undefined;
}

const SERIALIZED = new Set(['updateOne', 'deleteOne', 'findOneAndUpdate']);

/**
 * A view of a collection whose single-document writes (by `_id`) are serialized with every other
 * write through the same mutex, including the outbox relay's `$pull` and delete.
 */
export function serializeWrites<T extends Document>(coll: Collection<T>, locks: KeyedMutex): Collection<T> {
  return new Proxy(coll, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !SERIALIZED.has(prop) || typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => Promise<unknown>;
      return (filter: Record<string, unknown> | undefined, ...rest: unknown[]) => {
        const key = idKey(filter?._id);
        if (key === undefined) return fn.call(target, filter, ...rest);
        return locks.run(`${target.namespace}:${key}`, () => fn.call(target, filter, ...rest));
      };
    },
  });
}
