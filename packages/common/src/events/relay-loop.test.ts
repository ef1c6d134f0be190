import type { Logger } from '../logger';
import { RelayLoop } from './relay-loop';

const logger = { warn: () => undefined } as unknown as Logger;

/** A relay whose passes are counted and fail while `failing` says so. */
class CountingRelay extends RelayLoop {
  passes = 0;
  failing = false;
  constructor(intervalMs: number, idleIntervalMs?: number) {
    super(logger, intervalMs, idleIntervalMs);
  }
  protected pass(): Promise<void> {
    this.passes++;
    return this.failing ? Promise.reject(new Error('publish failed')) : Promise.resolve();
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
    r.failing = true;
    r.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(r.passes).toBe(3);
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(4);
    await jest.advanceTimersByTimeAsync(1000);
    expect(r.passes).toBe(5);
    r.failing = false;
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
