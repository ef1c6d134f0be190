import type { Logger } from '../logger';
import type { OutboxObserver } from './observer';

/**
 * What a pass is told. `written`: a write of this process committed events since the previous
 * pass began (kick), so there is work unless another replica took it: a relay may skip its
 * "anything pending?" probe (on PostgreSQL one statement of three per relayed write).
 */
export interface PassHint {
  written: boolean;
}

/** The periodic pass's interval while all is well (see RelayLoop). */
const IDLE_INTERVAL_MS = 10_000;

/**
 * The schedule every outbox relay shares: a pass on demand right after a write (`kick`), a pass
 * at start (what a crash left behind), a periodic pass, never two passes at once, and a `flush`
 * for tests. Subclasses say what one pass does.
 *
 * The periodic pass comes every `intervalMs` while something failed (a publish, a pass), until
 * a pass succeeds; while all is well, every `idleIntervalMs` (10 s, or `intervalMs` when that is
 * longer). Writes are relayed by their kick, so when all is well the periodic pass only finds
 * what another replica left behind when it died; polling for that every second cost an idle
 * service a statement per second (issue 14: idle CPU).
 */
export abstract class RelayLoop {
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled periodic pass is due (ms since the epoch). */
  private dueAt = 0;
  private running: Promise<void> | undefined;
  private again = false;
  /** kick() was called since the last pass began: a write committed events (see PassHint). */
  private written = false;
  /** Something failed since the last successful pass: the periodic pass comes every intervalMs. */
  private failing = false;
  protected stopped = false;
  protected observer: OutboxObserver | undefined;
  private unwatch: (() => void) | undefined;
  private readonly idleIntervalMs: number;

  protected constructor(
    protected readonly logger: Logger,
    private readonly intervalMs: number,
    idleIntervalMs?: number,
  ) {
    this.idleIntervalMs = Math.max(intervalMs, idleIntervalMs ?? IDLE_INTERVAL_MS);
  }

  /** One pass over pending events; resolves when they are published (or throws). */
  protected abstract pass(hint: PassHint): Promise<void>;

  /**
   * How many entries wait to be published, cheaply (a bounded count); read at most every few
   * seconds for the backlog gauge. Relays that cannot tell leave it undefined.
   */
  protected backlog?(): Promise<number>;

  /** Starts the schedule; `observer` counts failed passes and samples the backlog. */
  start(observer?: OutboxObserver): void {
    this.observer = observer;
    const backlog = this.backlog?.bind(this);
    if (observer && backlog) this.unwatch = observer.watchBacklog(backlog);
    this.wake();
    this.schedule(this.intervalMs);
  }

  /**
   * A relay of its own (e.g. right after a write) failed and left events behind: the periodic
   * pass comes within `intervalMs` again, until a pass succeeds.
   */
  protected retrySoon(): void {
    this.failing = true;
    if (!this.stopped && this.timer && this.dueAt > Date.now() + this.intervalMs)
      this.schedule(this.intervalMs);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => void this.periodic(), ms);
    this.timer.unref();
  }

  private async periodic(): Promise<void> {
    this.timer = undefined;
    this.wake();
    await this.running;
    if (!this.stopped && !this.timer) this.schedule(this.failing ? this.intervalMs : this.idleIntervalMs);
  }

  /** Ask for a pass now, after a write that committed events; passes never overlap. */
  kick(): void {
    this.written = true;
    this.wake();
  }

  /** Ask for a pass now (start, schedule, or a write); passes never overlap. */
  private wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.passUntilQuiet().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when every event pending at the time of the call has been published (for tests). */
  async flush(): Promise<void> {
    // Through the same gate as every other pass: two passes at once would both publish what is
    // pending (on MongoDB the claim is not exclusive), so every event would go out twice.
    while (this.running) await this.running;
    const pass = this.pass(this.takeHint());
    this.running = pass.then(
      () => undefined,
      () => undefined,
    );
    void this.running.finally(() => {
      this.running = undefined;
      // A write that asked for a pass meanwhile gets one.
      if (this.again) this.wake();
    });
    await pass;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.running) await this.running;
  }

  /** The hint for a pass that begins now; a kick from here on belongs to the next pass. */
  private takeHint(): PassHint {
    const hint = { written: this.written };
    this.written = false;
    return hint;
  }

  private async passUntilQuiet(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass(this.takeHint());
        this.failing = false;
      } catch (err) {
        this.logger.warn({ err }, 'outbox relay pass failed; will retry');
        this.observer?.relayFailed();
        this.retrySoon();
        return;
      }
    } while (this.again && !this.stopped);
  }
}
