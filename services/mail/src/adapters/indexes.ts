import type { ServiceStore } from '@baas/common';

/**
 * The mail service's MongoDB indexes (PostgreSQL's are in its migrations): created at boot, or
 * by the setup Job when replicas start with DB_MIGRATE_ON_BOOT=false.
 */
export async function ensureMailIndexes(store: ServiceStore): Promise<void> {
  if (store.kind !== 'mongodb') return;
  const { MongoTemplateRepository } = await import('./mongo-template-repository');
  const { MongoUsageCounter } = await import('./mongo-usage-counter');
  const { MongoMessageRepository } = await import('./mongo-message-repository');
  const { db } = store;
  await Promise.all([
    new MongoTemplateRepository(db).ensureIndexes(),
    new MongoUsageCounter(db).ensureIndexes(),
    new MongoMessageRepository(db).ensureIndexes(),
  ]);
}
