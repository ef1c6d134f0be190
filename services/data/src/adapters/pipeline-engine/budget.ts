import { AppError, errors } from '@baas/common';
import { isObjectId, type Doc } from './bson';

/** Hard limits of one in-process pipeline run. */
export interface EngineBounds {
  /** Rows the pipeline may answer; more is a 413, never a truncated answer. */
  maxOutputRows: number;
  /**
   * Documents any stage may hold at once: its output rows plus the documents it embeds through
   * `$lookup`, `$graphLookup`, `$facet` and array-building window functions.
   */
  maxWorkingDocuments: number;
  /** Approximate size of what any stage holds (UTF-16 string lengths, 8 bytes a number...). */
  maxWorkingBytes: number;
  /** Wall-clock budget, checked between stages and between the documents of a join. */
  timeMs: number;
}

/** What a run used at its peak: for metrics, and for tests that put a bound exactly at the limit. */
export interface EngineUsage {
  peakDocuments: number;
  peakBytes: number;
  elapsedMs: number;
}

export type Clock = () => number;

/**
 * Every limit in one place. Codes: time over budget is 504 QUERY_TIMEOUT (the code the MongoDB
 * adapter gives a `maxTimeMS` expiry: 504), too many or too large working documents are 400
 * AGGREGATION_TOO_COSTLY, too many result rows 413 PAYLOAD_TOO_LARGE.
 */
export const engineErrors = {
  // The server's time budget ran out: a 504, as for a statement over its timeout, not the client's mistake.
  timeout: (ms: number) =>
    new AppError(504, 'QUERY_TIMEOUT', `The aggregation took longer than its budget of ${ms} ms`),
  tooManyDocuments: (max: number, where: string) =>
    errors.badRequest(
      'AGGREGATION_TOO_COSTLY',
      `The aggregation would hold more than ${max} documents (${where}); filter earlier or add a $limit`,
    ),
  tooManyBytes: (max: number, where: string) =>
    errors.badRequest(
      'AGGREGATION_TOO_COSTLY',
      `The aggregation would hold more than ${max} bytes (${where}); project fewer fields or add a $limit`,
    ),
  valueTooLarge: () =>
    errors.badRequest('AGGREGATION_TOO_COSTLY', 'A value built by the pipeline exceeded the engine limits'),
  tooManyRows: (max: number) =>
    errors.payloadTooLarge(`The aggregation returns more than ${max} rows; add a $limit`),
  unsupportedStage: (name: string) =>
    errors.badRequest('UNSUPPORTED_STAGE', `${name} is not supported on this store`),
  failed: (message: string) =>
    errors.badRequest('QUERY_FAILED', `The pipeline failed: ${message.slice(0, 200)}`),
};

/** Approximate bytes of a value, counting a shared object each time it is reached (as JSON would). */
export function approxBytes(root: unknown, stopAbove = Infinity): number {
  let total = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0 && total <= stopAbove) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'bigint' || v instanceof Date) total += 8;
    else if (typeof v === 'boolean' || v === null || v === undefined) total += 4;
    else if (Array.isArray(v)) {
      total += 2;
      for (const x of v) stack.push(x);
    } else if (isObjectId(v)) total += 12;
    else if (v instanceof RegExp) total += v.source.length + 4;
    else if (typeof v === 'object') {
      total += 2;
      // for...in rather than Object.entries: this walk runs after most stages, on every document.
      const doc = v as Doc;
      for (const k in doc) {
        total += k.length + 3;
        stack.push(doc[k]);
      }
    } else total += 8;
  }
  return total;
}

/**
 * The state of one run: a deadline and the peaks seen. Synchronous JavaScript cannot be
 * interrupted, so the runner calls these between stages and inside the loops of joins.
 */
export class Budget {
  readonly usage: EngineUsage = { peakDocuments: 0, peakBytes: 0, elapsedMs: 0 };
  private readonly started: number;
  /** Bytes that expressions of the current stage have built (guarded operators charge here). */
  private expressionBytes = 0;

  constructor(
    readonly bounds: EngineBounds,
    private readonly clock: Clock,
  ) {
    this.started = clock();
  }

  checkTime(): void {
    const elapsed = this.clock() - this.started;
    this.usage.elapsedMs = elapsed;
    if (elapsed > this.bounds.timeMs) throw engineErrors.timeout(this.bounds.timeMs);
  }

  documents(n: number, where: string): void {
    if (n > this.usage.peakDocuments) this.usage.peakDocuments = n;
    if (n > this.bounds.maxWorkingDocuments)
      throw engineErrors.tooManyDocuments(this.bounds.maxWorkingDocuments, where);
  }

  bytes(n: number, where: string): void {
    if (n > this.usage.peakBytes) this.usage.peakBytes = n;
    if (n > this.bounds.maxWorkingBytes) throw engineErrors.tooManyBytes(this.bounds.maxWorkingBytes, where);
  }

  /** Measures documents (stopping early once over the limit) and checks the byte bound. */
  measure(docs: readonly unknown[], where: string): number {
    const n = approxBytes(docs, this.bounds.maxWorkingBytes);
    this.bytes(n, where);
    return n;
  }

  /** A new stage starts: what earlier stages' expressions built is garbage or measured already. */
  startStage(): void {
    this.expressionBytes = 0;
  }

  /** An expression is about to build a value of about `n` bytes. */
  chargeExpression(n: number, operator: string): void {
    this.expressionBytes += n;
    if (n > this.bounds.maxWorkingBytes || this.expressionBytes > this.bounds.maxWorkingBytes)
      throw engineErrors.tooManyBytes(this.bounds.maxWorkingBytes, operator);
  }
}

export function isEngineError(e: unknown): e is AppError {
  return e instanceof AppError;
}
