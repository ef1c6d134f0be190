import { Transform, type TransformCallback } from 'node:stream';
import { errors, type ProjectId } from '@baas/common';
import type { QuotaLedger } from '../../ports';

/** Reservations are taken in grants of this size so a 10 MB upload costs ~10 ledger writes. */
export const QUOTA_GRANT_BYTES = 1024 * 1024;

export interface MeterOptions {
  projectId: ProjectId;
  maxBytes: number;
  quotaBytes: number;
  quota: QuotaLedger;
  /** Told about every grant, so a crash mid-upload leaves a record of what to release. */
  onReserved: (bytes: number) => Promise<void>;
}

/**
 * Sits between the multipart file stream and the object store. It counts bytes as they arrive
 * and fails the stream past the size limit (whatever Content-Length said), and it reserves quota
 * ahead of the bytes it lets through: a conditional increment per grant, falling back to exactly
 * what the chunk needs near the limit, so concurrent uploads can never overshoot the quota.
 */
export class UploadMeter extends Transform {
  bytes = 0;
  reserved = 0;

  constructor(private readonly opts: MeterOptions) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.accept(chunk).then(
      () => cb(null, chunk),
      (e: unknown) => cb(e as Error),
    );
  }

  private async accept(chunk: Buffer): Promise<void> {
    const next = this.bytes + chunk.length;
    if (next > this.opts.maxBytes) {
      throw errors.payloadTooLarge(`File exceeds the ${this.opts.maxBytes} byte limit`);
    }
    if (next > this.reserved) await this.reserveFor(next);
    this.bytes = next;
  }

  private async reserveFor(total: number): Promise<void> {
    const need = total - this.reserved;
    const grant = Math.min(Math.max(need, QUOTA_GRANT_BYTES), this.opts.maxBytes - this.reserved);
    const { quota, projectId, quotaBytes } = this.opts;
    let got = 0;
    if (await quota.reserve(projectId, grant, quotaBytes)) got = grant;
    else if (grant > need && (await quota.reserve(projectId, need, quotaBytes))) got = need;
    if (got === 0) throw errors.quotaExceeded('Storage quota exceeded');
    this.reserved += got;
    await this.opts.onReserved(got);
  }
}
