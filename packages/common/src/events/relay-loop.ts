import type { Logger } from '../logger';
import type { OutboxObserver } from './observer';

/**
 * The schedule every outbox relay shares: a pass now and then (catching what a crash left
 * behind), a pass on demand right after a write (`kick`), never two passes at once, and a
 * `flush` for tests. Subclasses say what one pass does.
 */
export abstract class RelayLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  protected stopped = false;
  protected observer: OutboxObserver | undefined;
  private unwatch: (() => void) | undefined;

  protected constructor(
    protected readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  /** One pass over pending events; resolves when they are published (or throws). */
  protected abstract pass(): Promise<void>;

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
    this.timer = setInterval(() => this.kick(), this.intervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Ask for a pass now (after a write); passes never overlap. */
  kick(): void {
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
    if (this.running) await this.running;
    await this.pass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    if (this.timer) clearInterval(this.timer);
    if (this.running) await this.running;
  }

  private async passUntilQuiet(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (err) {
        this.logger.warn({ err }, 'outbox relay pass failed; will retry');
        this.observer?.relayFailed();
        return;
      }
    } while (this.again && !this.stopped);
  }
}
