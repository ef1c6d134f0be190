import type { Logger } from '../logger';
import { RelayLoop, type PassHint } from './relay-loop';

const logger = { warn: () => undefined } as unknown as Logger;

/** A relay whose passes are counted and fail while `failPasses` says so. */
class CountingRelay extends RelayLoop {
  passes = 0;
  failPasses = false;
  hints: boolean[] = [];
  constructor(intervalMs: number, idleIntervalMs?: number) {
    super(logger, intervalMs, idleIntervalMs);
  }
  protected pass(hint: PassHint): Promise<void> {
    this.passes++;
    this.hints.push(hint.written);
    return this.failPasses ? Promise.reject(new Error('publish failed')) : Promise.resolve();
  }
  /** What an immediate relay (MongoDB's relayOne) does when it fails. */
  relayOneFailed(): void {
    this.retrySoon();
  }
}

describe('RelayLoop schedule', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('passes at start and after intervalMs, then every 10 s while passes succeed', async () => {
    const r = new CountingRelay(1000);
    r.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(r.passes).toBe(1);
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(2);
    await jest.advanceTimersByTimeAsync(9999);
    expect(r.passes).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(r.passes).toBe(3);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(r.passes).toBe(4);
    await r.stop();
  });

  it('keeps an interval longer than the idle one as it is', async () => {
    const r = new CountingRelay(60_000);
    r.start();
    await jest.advanceTimersByTimeAsync(0);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(r.passes).toBe(2);
    await jest.advanceTimersByTimeAsync(59_999);
    expect(r.passes).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(r.passes).toBe(3);
    await r.stop();
  });

  it('retries every intervalMs after a failed pass until one succeeds', async () => {
    const r = new CountingRelay(1000);
    r.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(2);
    // idle now (next periodic pass 10 s away); a kicked pass fails
    r.failPasses = true;
    r.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(r.passes).toBe(3);
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(4);
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(5);
    r.failPasses = false;
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(6);
    // succeeded: back to the idle interval
    await jest.advanceTimersByTimeAsync(9999);
    expect(r.passes).toBe(6);
    await jest.advanceTimersByTimeAsync(1);
    expect(r.passes).toBe(7);
    await r.stop();
  });

  it('brings the periodic pass forward when a relay of its own fails', async () => {
    const r = new CountingRelay(1000);
    r.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(2);
    await jest.advanceTimersByTimeAsync(3000);
    r.relayOneFailed();
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(3);
    await r.stop();
  });

  it('tells a pass whether a write kicked it since the previous pass began', async () => {
    const r = new CountingRelay(1000);
    r.start(); // the pass at start: what a crash left behind
    await jest.advanceTimersByTimeAsync(0);
    r.kick(); // a write
    await jest.advanceTimersByTimeAsync(0);
    await jest.advanceTimersByTimeAsync(1000); // the periodic pass
    r.failPasses = true;
    r.kick(); // a write whose pass fails: the retry is a periodic pass, which probes
    await jest.advanceTimersByTimeAsync(0);
    r.failPasses = false;
    await jest.advanceTimersByTimeAsync(1000);
    await r.flush(); // a flush with no write since
    expect(r.hints).toEqual([false, true, false, true, false, false]);
    await r.stop();
  });

  it('stops passing once stopped', async () => {
    const r = new CountingRelay(1000);
    r.start();
    await jest.advanceTimersByTimeAsync(0);
    await r.stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(r.passes).toBe(1);
    r.kick();
    expect(r.passes).toBe(1);
  });
});

describe('RelayLoop passes never overlap', () => {
  /** A relay whose passes wait until released, recording how many ran at once. */
  class GatedRelay extends RelayLoop {
    passes = 0;
    active = 0;
    most = 0;
    private releases: Array<() => void> = [];
    constructor() {
      super(logger, 60_000);
    }
    hints: boolean[] = [];
    protected override async pass(hint: PassHint): Promise<void> {
      this.passes++;
      this.hints.push(hint.written);
      this.active++;
      this.most = Math.max(this.most, this.active);
      await new Promise<void>((r) => this.releases.push(r));
      this.active--;
    }
    release(): void {
      for (const r of this.releases.splice(0)) r();
    }
  }
  const tick = () => new Promise((r) => setImmediate(r));

  it('a flush waits for the running pass, and a kick during the flush gets a pass after it', async () => {
    const r = new GatedRelay();
    r.kick(); // a write's pass
    await tick();
    const flushed = r.flush();
    await tick();
    r.kick(); // another write while the flush waits
    await tick();
    for (let i = 0; i < 5; i++) {
      r.release();
      await tick();
    }
    await flushed;
    for (let i = 0; i < 5; i++) {
      r.release();
      await tick();
    }
    expect(r.most).toBe(1);
    expect(r.passes).toBeGreaterThanOrEqual(3);
    expect(r.active).toBe(0);
    // the first kicked pass, and the one the kick during it asked for, know of their writes
    expect(r.hints.slice(0, 2)).toEqual([true, true]);
    await r.stop();
  });

  it('a flush that runs first holds off kicks until it is done, then runs the kicked pass', async () => {
    const r = new GatedRelay();
    const flushed = r.flush();
    await tick();
    r.kick();
    await tick();
    expect(r.active).toBe(1);
    r.release();
    await flushed;
    await tick();
    expect(r.passes).toBe(2);
    r.release();
    await tick();
    expect(r.most).toBe(1);
    await r.stop();
  });
});
