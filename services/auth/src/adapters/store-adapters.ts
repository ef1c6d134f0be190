import type { OutboxObserver, ProcessedEvents } from '@baas/common';
import type {
  AuditLog,
  CodeClaims,
  ConsoleAccountRepository,
  ConsoleMemberRepository,
  ConsoleSessionRepository,
  IdGenerator,
  ProjectRepository,
  SessionRepository,
  SigningKeyRepository,
  UserRepository,
  UsersSchemaRepository,
} from '../ports';

/** The outbox relay of either store: a periodic pass, a pass on demand, a drain for tests. */
export interface OutboxRelayLoop {
  start(observer?: OutboxObserver): void;
  kick(): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Everything the auth service keeps in its database, on one store. */
export interface StoreAdapters {
  projects: ProjectRepository;
  users: UserRepository;
  sessions: SessionRepository;
  schemas: UsersSchemaRepository;
  claims: CodeClaims;
  signingKeys: SigningKeyRepository;
  /** The audit log; the sessions repository writes a sign-in's entry with its session. */
  audit: AuditLog;
  /** Console accounts, their sessions, memberships and invitations. */
  console: {
    accounts: ConsoleAccountRepository;
    sessions: ConsoleSessionRepository;
    members: ConsoleMemberRepository;
  };
  relay: OutboxRelayLoop;
  /** Consumers' idempotency records, in the same database. */
  processed: ProcessedEvents;
  /** Project ids, and the 24-hex ids of users and console records. */
  ids: { project: IdGenerator; userId: () => string };
}

export interface RelayOptions {
  /** Period of the relay's sweep for events a crash left behind. */
  relayIntervalMs?: number;
}
