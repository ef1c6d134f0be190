import { LRUCache } from 'lru-cache';

/** What `boundedLru` takes: lru-cache's options but the bound, which it sets itself. */
export type BoundedLruOptions<K extends NonNullable<unknown>, V extends NonNullable<unknown>> = Omit<
  LRUCache.Options<K, V, unknown>,
  'max' | 'maxSize' | 'sizeCalculation' | 'maxEntrySize'
>;

/**
 * An LRU cache of at most `limit` entries whose memory follows what it holds. lru-cache's `max`
 * allocates its arrays for all `max` entries up front (two arrays of `max` slots, two more with a
 * TTL, and index arrays): the gateway's caches, sized for 20,000-100,000 callers, held ~10 MB of a
 * process that was idle. Counting each entry as size 1 against `maxSize` gives the same bound and
 * the same eviction order with arrays that grow as entries arrive.
 */
export function boundedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  limit: number,
  opts: BoundedLruOptions<K, V> = {},
): LRUCache<K, V> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new TypeError(`boundedLru: limit must be a positive integer, got ${limit}`);
  return new LRUCache<K, V>({ ...opts, maxSize: limit, sizeCalculation: () => 1 });
}
