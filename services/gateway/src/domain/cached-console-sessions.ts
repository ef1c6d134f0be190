import type { LRUCache } from 'lru-cache';
import { boundedLru, type ConsoleSessionResolution } from '@baas/common';
import type { ConsoleSessions } from '../ports';

type Entry = { value: ConsoleSessionResolution | null };

/**
 * In-process cache of console sessions by token hash: a live session for up to `ttlMs` (30 s,
 * never past its expiry), an unknown token for a few seconds; concurrent misses share one lookup.
 * An account's entries are dropped at once when auth announces a change to it (sign-out,
 * revocation, role change: NATS) and all of them when NATS reconnects (announcements may have
 * been missed), so the TTL only bounds what a lost message could leave behind.
 */
export class CachedConsoleSessions implements ConsoleSessions {
  private readonly cache: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Promise<ConsoleSessionResolution | null>>();
  private generation = 0;

  constructor(
    private readonly inner: ConsoleSessions,
    private readonly ttlMs = 30_000,
    private readonly negativeTtlMs = 5000,
    max = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = boundedLru<string, Entry>(max, { ttl: ttlMs });
  }

  async resolve(tokenHash: string, requestId: string): Promise<ConsoleSessionResolution | null> {
    const hit = this.cache.get(tokenHash);
    const value = hit ? hit.value : await this.lookup(tokenHash, requestId);
    return value && this.live(value) ? value : null;
  }

  /** Whether a lookup for this token would be answered from memory. */
  has(tokenHash: string): boolean {
    return this.cache.has(tokenHash);
  }

  /** Forget every cached session of an account. */
  invalidateAccount(accountId: string): void {
    this.forgetLookups();
    for (const [k, e] of this.cache.entries()) if (e.value?.accountId === accountId) this.cache.delete(k);
  }

  /** Forget a session, and the other sessions of its account when it is cached. */
  forgetSession(tokenHash: string): void {
    const accountId = this.cache.get(tokenHash)?.value?.accountId;
    this.forgetLookups();
    this.cache.delete(tokenHash);
    if (accountId !== undefined) this.invalidateAccount(accountId);
  }

  clear(): void {
    this.forgetLookups();
    this.cache.clear();
  }

  /** Lookups in flight may carry what was just revoked: later requests start their own. */
  private forgetLookups(): void {
    this.generation++;
    this.inflight.clear();
  }

  private live(s: ConsoleSessionResolution): boolean {
    return Date.parse(s.expiresAt) > this.now();
  }

  private lookup(tokenHash: string, requestId: string): Promise<ConsoleSessionResolution | null> {
    const pending = this.inflight.get(tokenHash);
    if (pending) return pending;
    const gen = this.generation;
    const p = this.inner
      .resolve(tokenHash, requestId)
      .then((value) => {
        // A lookup that started before an invalidation may carry what it revoked: do not keep it.
        if (gen === this.generation) {
          const ttl = value
            ? Math.min(this.ttlMs, Date.parse(value.expiresAt) - this.now())
            : this.negativeTtlMs;
          if (ttl > 0) this.cache.set(tokenHash, { value }, { ttl });
        }
        return value;
      })
      .finally(() => {
        if (this.inflight.get(tokenHash) === p) this.inflight.delete(tokenHash);
      });
    this.inflight.set(tokenHash, p);
    return p;
  }
}
