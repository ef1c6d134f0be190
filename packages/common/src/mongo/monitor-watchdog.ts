import type {
  MongoClient,
  ServerHeartbeatFailedEvent,
  ServerHeartbeatStartedEvent,
  ServerHeartbeatSucceededEvent,
} from 'mongodb';
import type { Logger } from '../logger';

export interface MonitorWatchdogOptions {
  /** A heartbeat outstanding this long is stuck: no check of the driver's own lasts so long. */
  stuckAfterMs: number;
  /** How often outstanding heartbeats are looked at. */
  intervalMs?: number;
  /** Pause between attempts to connect again while the server is still away. */
  retryMs?: number;
  logger?: Pick<Logger, 'warn' | 'error' | 'info'>;
}

/**
 * Unsticks the MongoDB driver's server monitor, which can wait forever (mongodb 6.22 and 7.9
 * alike; `test/integration/mongo-monitor-watchdog.test.ts` in packages/common holds the driver to it):
 *
 * when the server closes the monitor's connection there are a few milliseconds in which the
 * socket is destroyed but the connection has not yet seen its `close`. A check started in that
 * window (a pooled connection's error asks for one at once) writes `hello` to the dead socket and
 * waits for a `drain` that never comes; no socket timeout fires on a destroyed socket. No
 * heartbeat ever ends after that, a server marked Unknown stays Unknown, and every operation fails
 * server selection: the service would answer 503 until restarted. Seen after FerretDB restarts.
 *
 * The driver's own checks end within connectTimeoutMS (and a handshake's socket timeout), so a
 * heartbeat outstanding for `stuckAfterMs` is stuck: the watchdog closes the client and connects
 * it again (until the server answers), through the public API. Operations in flight then fail
 * (the error handler answers 503); the collections and databases taken from the client keep
 * working, since they reach the server through the client.
 */
export class MongoMonitorWatchdog {
  private readonly outstanding = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private recovering = false;
  private stopped = false;
  private readonly listeners: Array<[string, (...args: never[]) => void]>;
  /** Times the client was connected again; for tests and logs. */
  recoveries = 0;

  constructor(
    private readonly client: MongoClient,
    private readonly opts: MonitorWatchdogOptions,
  ) {
    this.listeners = [
      ['serverHeartbeatStarted', (e: ServerHeartbeatStartedEvent) => this.started(e.connectionId)],
      ['serverHeartbeatSucceeded', (e: ServerHeartbeatSucceededEvent) => this.ended(e.connectionId)],
      ['serverHeartbeatFailed', (e: ServerHeartbeatFailedEvent) => this.ended(e.connectionId)],
      // the client was closed by its owner (not by the watchdog): nothing more to watch
      ['topologyClosed', () => void (this.recovering || this.stop())],
    ];
    for (const [event, fn] of this.listeners) client.on(event as 'topologyClosed', fn);
    this.timer = setInterval(() => this.check(), opts.intervalMs ?? 1000);
    this.timer.unref();
  }

  /** False once stopped (by stop(), or by the owner closing the client). */
  get running(): boolean {
    return !this.stopped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    for (const [event, fn] of this.listeners) this.client.off(event as 'topologyClosed', fn);
  }

  private started(address: string): void {
    if (!this.outstanding.has(address)) this.outstanding.set(address, Date.now());
  }

  private ended(address: string): void {
    this.outstanding.delete(address);
  }

  /** Looks for a stuck heartbeat; public for tests. */
  check(now = Date.now()): boolean {
    if (this.recovering || this.stopped) return false;
    const stuck = [...this.outstanding].find(([, since]) => now - since >= this.opts.stuckAfterMs);
    if (!stuck) return false;
    void this.recover(stuck[0], now - stuck[1]);
    return true;
  }

  private async recover(address: string, stuckMs: number): Promise<void> {
    this.recovering = true;
    this.opts.logger?.error(
      { server: address, stuckMs },
      'MongoDB server monitor stuck (a heartbeat that never ends); connecting the client again',
    );
    try {
      await this.client.close().catch(() => undefined);
      for (let attempt = 1; !this.stopped; attempt++) {
        try {
          await this.client.connect();
          this.recoveries++;
          this.opts.logger?.info({ server: address, attempt }, 'MongoDB client connected again');
          return;
        } catch (err) {
          this.opts.logger?.warn({ err, attempt }, 'MongoDB client could not connect again yet');
          await new Promise((r) => setTimeout(r, this.opts.retryMs ?? 1000));
        }
      }
    } finally {
      this.outstanding.clear();
      this.recovering = false;
    }
  }
}
