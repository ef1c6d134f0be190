/**
 * Serialises async work per key inside this process. FerretDB (v1, SQLite) applies an update as
 * read-modify-write without isolation: 50 concurrent `$inc` on one document end at ~4, and a
 * conditional update can let every racer through. Serialising the writes of one project's
 * ledger (and one file's delete) here makes them exact with one storage replica; on MongoDB the
 * conditional updates are atomic on their own, across replicas.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
