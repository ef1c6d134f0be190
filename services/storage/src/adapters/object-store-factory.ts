import { mkdir } from 'node:fs/promises';
import type { DependencyMetrics } from '@baas/common';
import type { StorageConfig } from '../config';
import type { ObjectStore } from '../ports';
import { LocalObjectStore } from './local-object-store';
import { S3ObjectStore } from './s3-object-store';

export type ReadyObjectStore = ObjectStore & { ping(): Promise<void> };

/** The configured driver, ready for use (bucket created, or directory made). */
export async function createObjectStore(
  config: StorageConfig,
  dependencies?: DependencyMetrics,
): Promise<ReadyObjectStore> {
  if (config.STORAGE_DRIVER === 'local') {
    const store = new LocalObjectStore(config.STORAGE_LOCAL_DIR);
    await store.init();
    return store;
  }
  const store = new S3ObjectStore({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    // Checked present by the config schema when the driver is s3.
    accessKeyId: config.S3_ACCESS_KEY_ID ?? '',
    secretAccessKey: config.S3_SECRET_ACCESS_KEY ?? '',
    spoolDir: config.UPLOAD_SPOOL_DIR,
    spoolMemoryBytes: config.UPLOAD_SPOOL_MEMORY_BYTES,
    ...(dependencies ? { dependencies } : {}),
  });
  await mkdir(config.UPLOAD_SPOOL_DIR, { recursive: true });
  await store.ensureBucket();
  return store;
}
