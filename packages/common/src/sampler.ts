export interface SamplerOptions {
  /** A value younger than this is answered without reading again. */
  maxAgeMs: number;
  /** How long an answer waits for a read in progress before it gives the last value. */
  timeoutMs: number;
  now?: () => number;
}

/**
 * A value that costs a round trip to read (a consumer's lag, an outbox's backlog), read when
 * someone asks (a scrape) and at most once per `maxAgeMs`, so scraping more often costs nothing
 * more and nothing reads it on a request's path. A slow read never holds an answer past
 * `timeoutMs`: the answer is the last value and the read finishes in the background. A failed
 * read forgets the value (a gauge without a series rather than a stale one), and is not
 * retried before `maxAgeMs` either.
 */
export class Sampler<T> {
  private last: { at: number; value: T | undefined } | undefined;
  private reading: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly opts: SamplerOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  async get(): Promise<T | undefined> {
    if (this.last && this.now() - this.last.at < this.opts.maxAgeMs) return this.last.value;
    this.reading ??= this.read().then(
      (value) => this.settle(value),
      () => this.settle(undefined),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.reading,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.opts.timeoutMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    return this.last?.value;
  }

  private settle(value: T | undefined): void {
    this.last = { at: this.now(), value };
    this.reading = undefined;
  }
}
