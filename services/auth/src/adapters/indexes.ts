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
  const { MongoConsoleClaims } = await import('./mongo-console-docs');
  const { MongoConsoleSessionRepository } = await import('./mongo-console-sessions');
  const { MongoConsoleMemberRepository } = await import('./mongo-console-members');
  const { MongoConsoleAccountRepository } = await import('./mongo-console-accounts');
  const { db } = store;
  await new MongoProjectRepository(db).ensureIndexes();
  await new MongoCodeClaims(db).ensureIndexes();
  await new MongoUserRepository(db).ensureIndexes();
  const audit = new MongoAuditLog(db);
  await new MongoSessionRepository(db, audit).ensureIndexes();
  await audit.ensureIndexes();
  const consoleClaims = new MongoConsoleClaims(db);
  const consoleSessions = new MongoConsoleSessionRepository(db);
  const consoleMembers = new MongoConsoleMemberRepository(db, consoleClaims);
  await consoleClaims.ensureIndexes();
  await consoleSessions.ensureIndexes();
  await consoleMembers.ensureIndexes();
  await new MongoConsoleAccountRepository(db, consoleClaims, {
    members: consoleMembers,
    sessions: consoleSessions,
  }).ensureIndexes();
}
