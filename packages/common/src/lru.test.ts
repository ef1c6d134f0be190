import { boundedLru } from './lru';

describe('boundedLru', () => {
  it('holds `limit` entries, and at one past the limit drops the least recently used', () => {
    const c = boundedLru<string, number>(3);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect(c.size).toBe(3); // at the limit: all kept
    expect(c.get('a')).toBe(1); // a is now the most recently used
    c.set('d', 4); // one past: b goes
    expect(c.size).toBe(3);
    expect([...c.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(c.has('b')).toBe(false);
  });

  it('keeps the options it is given (a TTL)', () => {
    let now = 1_000;
    const c = boundedLru<string, number>(10, { ttl: 50, ttlResolution: 0, perf: { now: () => now } });
    c.set('x', 1);
    now += 49;
    expect(c.get('x')).toBe(1);
    now += 2;
    expect(c.get('x')).toBeUndefined();
  });

  it('allocates for what it holds, not for its limit', () => {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const caches = Array.from({ length: 4 }, () => boundedLru<string, number>(1_000_000, { ttl: 60_000 }));
    const grown = process.memoryUsage().heapUsed - before;
    // lru-cache's `max: 1_000_000` with a TTL allocates ~32 MB per cache up front
    expect(grown).toBeLessThan(2 * 1024 * 1024);
    caches[0]!.set('k', 1);
    expect(caches[0]!.get('k')).toBe(1);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => boundedLru(0)).toThrow(TypeError);
    expect(() => boundedLru(1.5)).toThrow(TypeError);
  });
});
