import type { ServiceStore } from '@baas/common';
import type { AuditLog } from '../ports';

/** The audit log on the store `DATABASE_URL` names (only that store's adapter is loaded). */
export async function auditLogOn(store: ServiceStore): Promise<AuditLog> {
  switch (store.kind) {
    case 'postgres': {
      const { PgAuditLog } = await import('./postgres-audit-log');
      return new PgAuditLog(store.pool);
    }
    case 'mongodb': {
      const { MongoAuditLog } = await import('./mongo-audit-log');
      return new MongoAuditLog(store.db);
    }
  }
}
