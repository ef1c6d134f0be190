import { Sampler } from './sampler';

describe('Sampler', () => {
  it('reads once per max age however often it is asked', async () => {
    let t = 0;
    let reads = 0;
    const s = new Sampler(() => Promise.resolve(++reads), { maxAgeMs: 15_000, timeoutMs: 100, now: () => t });
    expect(await s.get()).toBe(1);
    t = 14_999;
    expect(await Promise.all([s.get(), s.get()])).toEqual([1, 1]);
    t = 15_000;
    expect(await s.get()).toBe(2);
    expect(reads).toBe(2);
  });

  it('shares one read in progress between concurrent askers', async () => {
    let reads = 0;
    const s = new Sampler(() => new Promise<number>((r) => setTimeout(() => r(++reads), 10)), {
      maxAgeMs: 1000,
      timeoutMs: 1000,
    });
    expect(await Promise.all([s.get(), s.get(), s.get()])).toEqual([1, 1, 1]);
    expect(reads).toBe(1);
  });

  it('answers with the last value when a read is slower than the timeout, and keeps the late result', async () => {
    let t = 0;
    let release!: (n: number) => void;
    let calls = 0;
    const s = new Sampler(
      () => (++calls === 1 ? Promise.resolve(7) : new Promise<number>((r) => (release = r))),
      { maxAgeMs: 10, timeoutMs: 5, now: () => t },
    );
    expect(await s.get()).toBe(7);
    t = 20;
    expect(await s.get()).toBe(7);
    release(9);
    await new Promise((r) => setImmediate(r));
    expect(await s.get()).toBe(9);
  });

  it('forgets the value when a read fails and waits a max age before reading again', async () => {
    let t = 0;
    let fail = false;
    let reads = 0;
    const s = new Sampler(
      () => {
        reads++;
        return fail ? Promise.reject(new Error('nats down')) : Promise.resolve(3);
      },
      { maxAgeMs: 10, timeoutMs: 100, now: () => t },
    );
    expect(await s.get()).toBe(3);
    fail = true;
    t = 10;
    expect(await s.get()).toBeUndefined();
    t = 15;
    expect(await s.get()).toBeUndefined();
    expect(reads).toBe(2);
  });
});
