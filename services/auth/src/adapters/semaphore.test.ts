import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('runs at most `limit` tasks at once and refuses beyond the queue', async () => {
    const s = new Semaphore(2, 1, () => new Error('full'));
    let running = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    const task = () =>
      s.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => release.push(r));
        running--;
      });
    const a = task();
    const b = task();
    const c = task(); // queued
    await expect(task()).rejects.toThrow('full');
    while (release.length < 2) await new Promise((r) => setImmediate(r));
    release.shift()!();
    await a;
    while (release.length < 2) await new Promise((r) => setImmediate(r));
    release.splice(0).forEach((r) => r());
    await Promise.all([b, c]);
    expect(peak).toBe(2);
    expect(s.stats).toEqual({ active: 0, waiting: 0 });
  });
});
