import { KeyedMutex, type ServiceStore } from '@baas/common';

/**
 * The data service's own MongoDB indexes (the catalogue and the pending-work index; PostgreSQL's
 * are in its migrations, and a collection's declared indexes are made when it is registered):
 * created at boot, or by the setup Job when replicas start with DB_MIGRATE_ON_BOOT=false.
 */
export async function ensureDataIndexes(store: ServiceStore): Promise<void> {
  if (store.kind !== 'mongodb') return;
  const { MongoCollectionCatalogue } = await import('./mongo/catalogue');
  const { MongoPendingIndex } = await import('./mongo/pending-index');
  await new MongoCollectionCatalogue(store.db, new KeyedMutex()).ensureIndexes();
  await new MongoPendingIndex(store.db).ensureIndexes();
}
