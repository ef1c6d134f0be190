/**
 * Serialises async work per key inside this process.
 *
 * Why: FerretDB 1.x applies an update as read-modify-write without isolation (50 concurrent
 * conditional `$inc` on one document end at ~4; a `$push` racing the outbox relay's `$pullAll`
 * can lose the pushed event). MongoDB makes every single-document update atomic, so there this
 * costs a map lookup. With FerretDB, run one replica per service (development and CI); invariants
 * that must hold across processes use unique-key inserts, which are atomic on both.
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
