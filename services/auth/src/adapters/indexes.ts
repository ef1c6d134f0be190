import type { ServiceStore } from '@baas/common';

/**
 * The auth service's MongoDB indexes (PostgreSQL's are in its migrations): created at boot, or
 * by the setup Job when replicas start with DB_MIGRATE_ON_BOOT=false.
 */
export async function ensureAuthIndexes(store: ServiceStore): Promise<void> {
  if (store.kind !== 'mongodb') return;
  const { MongoProjectRepository } = await import('./mongo-project-repository');
  const { MongoCodeClaims } = await import('./mongo-code-claims');
  const { MongoUserRepository } = await import('./mongo-user-repository');
  const { MongoSessionRepository } = await import('./mongo-session-repository');
  const { MongoAuditLog } = await import('./mongo-audit-log');
  const { db } = store;
  await new MongoProjectRepository(db).ensureIndexes();
  await new MongoCodeClaims(db).ensureIndexes();
  await new MongoUserRepository(db).ensureIndexes();
  await new MongoSessionRepository(db).ensureIndexes();
  await new MongoAuditLog(db).ensureIndexes();
}
