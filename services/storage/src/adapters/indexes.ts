import type { ServiceStore } from '@baas/common';

/**
 * The storage service's MongoDB indexes (PostgreSQL's are in its migrations): created at boot,
 * or by the setup Job when replicas start with DB_MIGRATE_ON_BOOT=false.
 */
export async function ensureStorageIndexes(store: ServiceStore): Promise<void> {
  if (store.kind !== 'mongodb') return;
  const { MongoFileRepository } = await import('./mongo-file-repository');
  await new MongoFileRepository(store.db).ensureIndexes();
}
