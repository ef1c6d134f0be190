import type { LRUCache } from 'lru-cache';
import { boundedLru } from '@baas/common';
import type { ProjectDirectory, ResolvedProject } from '../ports';

type Entry = { value: ResolvedProject | null };

/**
 * In-process cache in front of the directory: positive entries for KEY_CACHE_TTL_SECONDS,
 * unknown keys for a few seconds; concurrent misses for one key share one lookup. A project's
 * entries are dropped at once when it changes (NATS invalidation) or when NATS reconnects.
 */
export class CachedProjectDirectory implements ProjectDirectory {
  private readonly cache: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Promise<ResolvedProject | null>>();
  private generation = 0;

  constructor(
    private readonly inner: ProjectDirectory,
    private readonly ttlMs: number,
    private readonly negativeTtlMs = 5000,
    max = 50_000,
  ) {
    this.cache = boundedLru<string, Entry>(max, { ttl: ttlMs });
  }

  byKeyHash(keyHash: string, requestId: string): Promise<ResolvedProject | null> {
    return this.lookup(`k:${keyHash}`, () => this.inner.byKeyHash(keyHash, requestId));
  }

  byId(projectId: string, requestId: string): Promise<ResolvedProject | null> {
    return this.lookup(`p:${projectId}`, () => this.inner.byId(projectId, requestId));
  }

  invalidateProject(projectId: string): void {
    this.generation++;
    this.cache.delete(`p:${projectId}`);
    for (const [k, e] of this.cache.entries()) if (e.value?.projectId === projectId) this.cache.delete(k);
  }

  clear(): void {
    this.generation++;
    this.cache.clear();
  }

  private async lookup(
    key: string,
    load: () => Promise<ResolvedProject | null>,
  ): Promise<ResolvedProject | null> {
    const hit = this.cache.get(key);
    if (hit) return hit.value;
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const gen = this.generation;
    const p = load()
      .then((value) => {
        // A lookup that started before an invalidation may carry stale data: do not cache it.
        if (gen === this.generation)
          this.cache.set(key, { value }, { ttl: value ? this.ttlMs : this.negativeTtlMs });
        return value;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }
}
