import { KeyedMutex } from './keyed-mutex';

describe('KeyedMutex', () => {
  it('runs work of one key one at a time, in order, and other keys alongside', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const step = (k: string, i: number, ms: number) =>
      m.run(k, async () => {
        log.push(`${k}${i}+`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${k}${i}-`);
      });
    await Promise.all([step('a', 1, 20), step('a', 2, 1), step('b', 1, 5)]);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1+')).toBeLessThan(log.indexOf('a1-'));
  });

  it('keeps going after a failure', async () => {
    const m = new KeyedMutex();
    await expect(m.run('k', () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(m.run('k', async () => 1)).resolves.toBe(1);
  });
});
