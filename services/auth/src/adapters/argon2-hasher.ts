import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import argon2 from 'argon2';
import type { PasswordHashObserver, PasswordHasher } from '../ports';
import { Semaphore } from './semaphore';

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * argon2id (PHC string, 16-byte salt, 32-byte tag) behind a semaphore: at most `concurrency`
 * hashes run at once (each holds `memoryCost` KiB and a libuv thread), at most `queueMax` wait;
 * beyond that the caller gets 503 with Retry-After instead of the process running out of memory.
 */
export class Argon2Hasher implements PasswordHasher {
  private readonly gate: Semaphore;
  private readonly observer: PasswordHashObserver | undefined;
  private dummyHash: string | undefined;

  constructor(
    private readonly params: Argon2Params,
    opts: { concurrency: number; queueMax: number; onBusy: () => Error; observer?: PasswordHashObserver },
  ) {
    this.gate = new Semaphore(opts.concurrency, opts.queueMax, opts.onBusy);
    this.observer = opts.observer;
    this.observer?.watchQueue(() => this.gate.stats.waiting);
  }

  /** Runs one argon2 computation in a slot, timed. */
  private timed<T>(operation: 'hash' | 'verify', task: () => Promise<T>): Promise<T> {
    return this.gate.run(async () => {
      const started = performance.now();
      try {
        return await task();
      } finally {
        this.observer?.computed(operation, (performance.now() - started) / 1000);
      }
    });
  }

  private options() {
    return { type: argon2.argon2id, ...this.params, hashLength: 32, saltLength: 16 } as const;
  }

  /** Makes the fixed hash unknown users are verified against (same parameters as real ones). */
  async init(): Promise<void> {
    this.dummyHash = await argon2.hash(randomBytes(24).toString('base64url'), this.options());
  }

  hash(password: string): Promise<string> {
    return this.timed('hash', () => argon2.hash(password, this.options()));
  }

  verify(hash: string, password: string): Promise<boolean> {
    return this.timed('verify', async () => {
      try {
        return await argon2.verify(hash, password);
      } catch {
        return false; // a malformed stored hash never verifies
      }
    });
  }

  needsRehash(hash: string): boolean {
    try {
      return argon2.needsRehash(hash, this.params);
    } catch {
      return true;
    }
  }

  async dummyVerify(password: string): Promise<void> {
    if (!this.dummyHash) await this.init();
    await this.verify(this.dummyHash as string, password);
  }
}
