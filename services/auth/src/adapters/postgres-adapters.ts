import type { EventPublisher, Logger } from '@baas/common';
import { PgOutboxRelay, PgProcessedEvents, type Pool } from '@baas/common/postgres';
import { PgAuthDatabase } from './postgres-database';
import { PgProjectRepository } from './postgres-project-repository';
import { PgUserRepository } from './postgres-user-repository';
import { PgSessionRepository } from './postgres-session-repository';
import { PgAuditLog } from './postgres-audit-log';
import { PgUsersSchemaRepository } from './postgres-users-schema-repository';
import { PgCodeClaims } from './postgres-code-claims';
import { PgSigningKeyRepository } from './postgres-signing-key-repository';
import { PgConsoleAccountRepository } from './postgres-console-accounts';
import { PgConsoleSessionRepository } from './postgres-console-sessions';
import { PgConsoleMemberRepository } from './postgres-console-members';
import { hexIdGenerator, newHexId } from './hex-ids';
import type { RelayOptions, StoreAdapters } from './store-adapters';

/**
 * The auth service on PostgreSQL (tables from services/auth/migrations). Events go to the
 * `outbox` table in the transaction of their change; every commit that wrote some kicks the relay.
 */
export function postgresAdapters(
  pool: Pool,
  publisher: EventPublisher,
  logger: Logger,
  opts: RelayOptions = {},
): StoreAdapters {
  const relay = new PgOutboxRelay(pool, publisher, logger, { intervalMs: opts.relayIntervalMs });
  const db = new PgAuthDatabase(pool, () => relay.kick());
  return {
    projects: new PgProjectRepository(db),
    users: new PgUserRepository(db),
    sessions: new PgSessionRepository(db),
    schemas: new PgUsersSchemaRepository(db),
    claims: new PgCodeClaims(db),
    signingKeys: new PgSigningKeyRepository(db),
    audit: new PgAuditLog(pool),
    console: {
      accounts: new PgConsoleAccountRepository(db),
      sessions: new PgConsoleSessionRepository(db),
      members: new PgConsoleMemberRepository(db),
    },
    relay,
    processed: new PgProcessedEvents(pool),
    ids: { project: hexIdGenerator, userId: () => newHexId() },
  };
}
