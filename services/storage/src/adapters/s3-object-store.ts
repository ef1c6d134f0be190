import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { DependencyMetrics, DependencyOutcome } from '@baas/common';
import type { ObjectStore, StoredObject } from '../ports';
import { spool } from './spool';

export interface S3StoreOptions {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where bodies past `spoolMemoryBytes` wait, whole, until they are sent (see spool.ts). */
  spoolDir: string;
  spoolMemoryBytes: number;
  /** Times every S3 call (baas_dependency_request_duration_seconds). */
  dependencies?: DependencyMetrics;
}

/** Answers that say the object store is unusable as configured or overloaded, not that the call was wrong. */
const S3_FAILED_STATUS = new Set([401, 403, 408, 429]);

/**
 * An answer below 500 refuses the call itself (a missing object, a precondition): `rejected`;
 * a 5xx, throttling (429, 503 SlowDown), a timeout, credentials or a bucket the server refuses
 * (the deployment's settings), or no answer at all: `failed`.
 */
export function s3Outcome(e: unknown): DependencyOutcome {
  const status = e instanceof S3ServiceException ? e.$metadata.httpStatusCode : undefined;
  if (status === undefined || status >= 500 || S3_FAILED_STATUS.has(status) || isBucketMissing(e))
    return 'failed';
  return 'rejected';
}

function isBucketMissing(e: unknown): boolean {
  return e instanceof S3ServiceException && e.name === 'NoSuchBucket';
}

/**
 * The object is not there. A missing bucket is not a missing object: it fails the call, so a
 * wrong bucket setting never reads as "every object is gone" (a HEAD has no body to tell the
 * two apart, which is why the orphan sweep checks the bucket first).
 */
function isNotFound(e: unknown): boolean {
  if (!(e instanceof S3ServiceException) || isBucketMissing(e)) return false;
  return e.$metadata.httpStatusCode === 404 || e.name === 'NoSuchKey' || e.name === 'NotFound';
}

/** Any S3-compatible server (versitygw locally), path-style, one client per process. */
export class S3ObjectStore implements ObjectStore {
  readonly provider = 's3';
  readonly client: S3Client;

  constructor(private readonly opts: S3StoreOptions) {
    this.client = new S3Client({
      endpoint: opts.endpoint,
      region: opts.region,
      forcePathStyle: true,
      credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
      // Streams of unknown length: only send checksums the API insists on.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const dm = opts.dependencies;
    // Around the whole call, retries included; a download is timed to its headers (the body is
    // streamed to the client afterwards).
    if (dm)
      this.client.middlewareStack.add(
        (next, context) => async (args) => {
          const start = performance.now();
          const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
          try {
            const out = await next(args);
            dm.record('s3', operation, start, 'ok');
            return out;
          } catch (e) {
            dm.record('s3', operation, start, s3Outcome(e));
            throw e;
          }
        },
        { step: 'initialize', name: 'baasDependencyMetrics' },
      );
  }

  /** Creates the bucket when missing; safe to run from every replica at every start. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
      return;
    } catch (e) {
      if (!isNotFound(e) && !isBucketMissing(e)) throw e;
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.opts.bucket }));
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw e;
    }
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
  }

  /**
   * The body is received whole first (in memory up to `spoolMemoryBytes`, else in a file), then
   * sent with its length in one PUT: memory per upload stays at stream-buffer size, where a
   * multipart upload of a body of unknown length holds a 5 MB part (about twice that while the
   * part is assembled). A client that fails mid-body never reaches the store.
   */
  async put(key: string, body: Readable, contentType: string): Promise<void> {
    const spooled = await spool(body, this.opts.spoolDir, this.opts.spoolMemoryBytes);
    try {
      // One PUT: MAX_FILE_BYTES is held to S3's 5 GiB for a PUT by the config.
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.opts.bucket,
          Key: key,
          Body: spooled.open(),
          ContentLength: spooled.size,
          ContentType: contentType,
        }),
      );
    } finally {
      await spooled.dispose();
    }
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return r.Body instanceof Readable ? r.Body : null;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  async list(opts: {
    prefix?: string;
    startAfter?: string;
    limit: number;
  }): Promise<{ items: StoredObject[]; done: boolean }> {
    const r = await this.client.send(
      new ListObjectsV2Command({
        Bucket: this.opts.bucket,
        MaxKeys: opts.limit,
        ...(opts.prefix ? { Prefix: opts.prefix } : {}),
        ...(opts.startAfter ? { StartAfter: opts.startAfter } : {}),
      }),
    );
    const items = (r.Contents ?? [])
      .filter((o): o is { Key: string; LastModified?: Date } => typeof o.Key === 'string')
      .map((o) => ({ key: o.Key, lastModified: o.LastModified ?? new Date(0) }));
    return { items, done: !r.IsTruncated };
  }
}
