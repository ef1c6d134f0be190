import { ObjectId, type Collection, type Db } from 'mongodb';
import type { EventPublisher, Logger } from '@baas/common';
import { MongoProcessedEvents, OutboxRelay } from '@baas/common/mongo';
import { MongoProjectRepository, objectIdGenerator } from './mongo-project-repository';
import { MongoUserRepository } from './mongo-user-repository';
import { MongoSessionRepository } from './mongo-session-repository';
import { MongoAuditLog } from './mongo-audit-log';
import { MongoUsersSchemaRepository } from './mongo-users-schema-repository';
import { MongoCodeClaims } from './mongo-code-claims';
import { MongoSigningKeyRepository } from './mongo-signing-key-repository';
import { MongoConsoleClaims } from './mongo-console-docs';
import { MongoConsoleSessionRepository } from './mongo-console-sessions';
import { MongoConsoleMemberRepository } from './mongo-console-members';
import { MongoConsoleAccountRepository } from './mongo-console-accounts';
import type { RelayOptions, StoreAdapters } from './store-adapters';

/**
 * The auth service on MongoDB/FerretDB: events ride in the documents they describe (`_outbox`),
 * user writes hand their document to the relay at once; its indexes: adapters/indexes.ts.
 */
export function mongoAdapters(
  db: Db,
  publisher: EventPublisher,
  logger: Logger,
  opts: RelayOptions = {},
): StoreAdapters {
  // Writes with events kick the relay, which needs their collection: a late binding.
  const relayRef: { current?: OutboxRelay } = {};
  const projects = new MongoProjectRepository(db, (coll, id) => void relayRef.current?.relayOne(coll, id));
  const users = new MongoUserRepository(db, (coll, id) => void relayRef.current?.relayOne(coll, id));
  const audit = new MongoAuditLog(db);
  const sessions = new MongoSessionRepository(
    db,
    audit,
    (coll, id) => void relayRef.current?.relayOne(coll, id),
  );
  const claims = new MongoCodeClaims(db);
  const relayNow = (coll: Collection, id: string) => void relayRef.current?.relayOne(coll, id);
  const consoleClaims = new MongoConsoleClaims(db);
  const consoleSessions = new MongoConsoleSessionRepository(db);
  const consoleMembers = new MongoConsoleMemberRepository(db, consoleClaims, relayNow);
  const consoleAccounts = new MongoConsoleAccountRepository(
    db,
    consoleClaims,
    { members: consoleMembers, sessions: consoleSessions },
    relayNow,
  );
  const relay = new OutboxRelay({
    collections: () => [
      projects.relayCollection,
      users.relayCollection,
      sessions.relayCollection,
      consoleAccounts.relayCollection,
      ...consoleMembers.relayCollections,
    ],
    publisher,
    logger,
    intervalMs: opts.relayIntervalMs,
  });
  relayRef.current = relay;
  return {
    projects,
    users,
    sessions,
    schemas: new MongoUsersSchemaRepository(db),
    claims,
    signingKeys: new MongoSigningKeyRepository(db),
    audit,
    console: { accounts: consoleAccounts, sessions: consoleSessions, members: consoleMembers },
    relay,
    processed: new MongoProcessedEvents(db),
    ids: { project: objectIdGenerator, userId: () => new ObjectId().toHexString() },
  };
}
