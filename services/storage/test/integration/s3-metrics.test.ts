import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DeleteBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { createMetrics, dependencyMetrics } from '@baas/common';
import { infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';
import { S3ObjectStore, type S3StoreOptions } from '../../src/adapters/s3-object-store';
import { dependencyCallCounts } from '../../../../test/support/dependency-metrics';

/** Every call the storage service makes to S3 is timed, by command and outcome. */
describe('dependency metrics of the S3 object store', () => {
  let spoolDir: string;
  let options: S3StoreOptions;

  beforeAll(async () => {
    await requireInfra('s3');
    spoolDir = await mkdtemp(path.join(os.tmpdir(), 's3-metrics-'));
    options = {
      endpoint: infra.s3Endpoint,
      region: 'us-east-1',
      bucket: uniqueDbName('s3-metrics').replace(/_/g, '-').toLowerCase(),
      accessKeyId: infra.s3AccessKeyId,
      secretAccessKey: infra.s3SecretAccessKey,
      spoolDir,
      spoolMemoryBytes: 4096,
    };
  });
  afterAll(async () => {
    await rm(spoolDir, { recursive: true, force: true });
  });

  it('records calls that work as ok and a missing object as rejected', async () => {
    const metrics = createMetrics('test');
    const store = new S3ObjectStore({ ...options, dependencies: dependencyMetrics(metrics) });
    try {
      await store.ensureBucket();
      await store.put('a/object.bin', Readable.from([randomBytes(100)]), 'application/octet-stream');
      expect(await store.exists('a/object.bin')).toBe(true);
      expect(await store.exists('a/missing.bin')).toBe(false);
      const c = await dependencyCallCounts(metrics, 's3');
      expect(c).toMatchObject({ 'PutObject|ok': 1, 'HeadObject|ok': 1, 'HeadObject|rejected': 1 });
      expect(c['HeadBucket|ok'] ?? c['HeadBucket|rejected']).toBe(1);
    } finally {
      await store.client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: 'a/object.bin' }));
      await store.client.send(new DeleteBucketCommand({ Bucket: options.bucket })).catch(() => undefined);
      store.client.destroy();
    }
  });

  it('records refused credentials and an unreachable server as failed', async () => {
    const metrics = createMetrics('test');
    const wrongKey = new S3ObjectStore({
      ...options,
      secretAccessKey: 'not-the-secret',
      dependencies: dependencyMetrics(metrics),
    });
    const down = new S3ObjectStore({
      ...options,
      endpoint: 'http://127.0.0.1:1',
      dependencies: dependencyMetrics(metrics),
    });
    try {
      await expect(wrongKey.exists('a/object.bin')).rejects.toThrow();
      await expect(down.exists('a/object.bin')).rejects.toThrow();
      expect(await dependencyCallCounts(metrics, 's3')).toEqual({ 'HeadObject|failed': 2 });
    } finally {
      wrongKey.client.destroy();
      down.client.destroy();
    }
  }, 30_000);
});
