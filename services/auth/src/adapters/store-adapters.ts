import type { OutboxObserver, ProcessedEvents } from '@baas/common';
import type {
  CodeClaims,
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
  relay: OutboxRelayLoop;
  /** Consumers' idempotency records, in the same database. */
  processed: ProcessedEvents;
  ids: { project: IdGenerator; userId: () => string };
}

export interface RelayOptions {
  /** Period of the relay's sweep for events a crash left behind. */
  relayIntervalMs?: number;
}
