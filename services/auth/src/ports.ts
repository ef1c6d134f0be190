import type { KeyType, ProjectId, EventEnvelope } from '@baas/common';
import type { Project, StoredKey, StoredSettings } from './domain/projects/project';
import type { StoredSigningKey } from './domain/keys/signing-key';
import type { CodePurpose, StoredCode, User } from './domain/users/user';
import type { SchemaField } from './domain/users/users-schema';
import type { AuditEntry, AuditQuery } from './domain/audit/audit-entry';

/** Projects and their keys, in the auth service's own database. */
export interface ProjectRepository {
  insert(project: Project, events: EventEnvelope[]): Promise<void>;
  findById(id: ProjectId): Promise<Project | null>;
  findByKeyHash(hash: string): Promise<{ project: Project; keyType: KeyType } | null>;
  update(
    id: ProjectId,
    changes: { name?: string; settings?: StoredSettings },
    events: EventEnvelope[],
  ): Promise<Project | null>;
  replaceKey(id: ProjectId, type: KeyType, key: StoredKey, events: EventEnvelope[]): Promise<boolean>;
  markDeleted(id: ProjectId, events: EventEnvelope[]): Promise<boolean>;
  /** Live projects newest first (by id), strictly before the id `before` when given; at most `limit`. */
  list(opts: { limit: number; before?: string }): Promise<Project[]>;
}

/** Tells every gateway to drop what it cached about a project, at once (core NATS). */
export interface CacheInvalidator {
  projectChanged(projectId: ProjectId): void;
}

export interface IdGenerator {
  projectId(): ProjectId;
}

export interface SigningKeyRepository {
  list(): Promise<StoredSigningKey[]>;
  insert(key: StoredSigningKey): Promise<void>;
  /** Every active key other than `exceptKid` stops signing (stays published). */
  markRetiring(exceptKid: string, at: Date): Promise<void>;
  retireRetiringBefore(cutoff: Date, at: Date): Promise<number>;
}

export interface NewUser {
  id: string;
  email: string;
  passwordHash: string;
  profile: Record<string, unknown>;
  codes: Partial<Record<CodePurpose, StoredCode>>;
  createdAt: Date;
}

/** What a successful code consumption changes, in the same write. */
export interface CodeEffects {
  emailVerified?: true;
  passwordHash?: string;
}

/**
 * End users of every project; each method is scoped by the project.
 *
 * `uniqueKeys` names the profile fields the users schema declares unique. The domain checks them
 * by query first (for every store); a store that can also enforce them in the write (PostgreSQL,
 * with a side table of unique values in the same transaction) throws DuplicateProfileValueError,
 * which closes the race between two signups taking the same value. MongoDB cannot (FerretDB has
 * no partial indexes), so there the query check is all.
 */
export interface UserRepository {
  /** Throws DuplicateEmailError when the email is taken in the project. */
  insert(
    projectId: ProjectId,
    user: NewUser,
    events: EventEnvelope[],
    uniqueKeys?: readonly string[],
  ): Promise<User>;
  findById(projectId: ProjectId, userId: string): Promise<User | null>;
  findByEmail(projectId: ProjectId, email: string): Promise<User | null>;
  /** Other users of the project whose profile field equals the value (unique checks, public profile). */
  findByProfileField(
    projectId: ProjectId,
    key: string,
    value: unknown,
    exceptUserId?: string,
  ): Promise<User | null>;
  updateProfile(
    projectId: ProjectId,
    userId: string,
    set: Record<string, unknown>,
    unset: string[],
    events: EventEnvelope[],
    uniqueKeys?: readonly string[],
  ): Promise<User | null>;
  /** Replaces the hash only if it is still `expectedHash` (no lost update with a concurrent change). */
  replacePasswordHash(
    projectId: ProjectId,
    userId: string,
    expectedHash: string,
    newHash: string,
    events: EventEnvelope[],
  ): Promise<boolean>;
  /** Stores a code (replacing any previous one of the purpose) unless one was issued after `notIssuedAfter`. */
  setCode(
    projectId: ProjectId,
    userId: string,
    purpose: CodePurpose,
    code: StoredCode,
    events: EventEnvelope[],
    notIssuedAfter: Date,
  ): Promise<boolean>;
  findByCodeToken(
    projectId: ProjectId,
    purpose: CodePurpose,
    tokenHash: string,
    now: Date,
  ): Promise<User | null>;
  /** Removes the code and applies its effects in one write (single use is enforced by CodeClaims). */
  consumeCode(
    projectId: ProjectId,
    userId: string,
    purpose: CodePurpose,
    tokenHash: string,
    effects: CodeEffects,
    events: EventEnvelope[],
  ): Promise<User | null>;
  delete(projectId: ProjectId, userId: string, events: EventEnvelope[]): Promise<boolean>;
  /**
   * The project's users newest first (by id), strictly before the id `before` when given, only
   * those whose normalized email contains `emailContains` when given; at most `limit`.
   */
  list(
    projectId: ProjectId,
    opts: { limit: number; before?: string; emailContains?: string },
  ): Promise<User[]>;
  deleteProject(projectId: ProjectId): Promise<number>;
  purgeExpiredCodes(cutoff: Date, limit: number): Promise<number>;
}

export class DuplicateEmailError extends Error {}

/** Another user of the project holds this value of a unique profile field. */
export class DuplicateProfileValueError extends Error {
  constructor(readonly key: string) {
    super(`duplicate value for ${key}`);
  }
}

/** A login: every refresh token of one rotation chain shares it. */
export interface SessionFamily {
  id: string;
  projectId: ProjectId;
  userId: string;
  createdAt: Date;
  /** Absolute end of the login, whatever the rotation. */
  expiresAt: Date;
  revokedAt?: Date;
  revokedReason?: string;
}

export interface StoredRefreshToken {
  hash: string;
  projectId: ProjectId;
  userId: string;
  familyId: string;
  issuedAt: Date;
  expiresAt: Date;
  usedAt?: Date;
  childHash?: string;
}

export interface SessionRepository {
  createFamily(family: SessionFamily): Promise<void>;
  findFamily(projectId: ProjectId, familyId: string): Promise<SessionFamily | null>;
  revokeFamily(projectId: ProjectId, familyId: string, reason: string, at: Date): Promise<void>;
  revokeUserFamilies(
    projectId: ProjectId,
    userId: string,
    reason: string,
    at: Date,
    exceptFamilyId?: string,
  ): Promise<number>;
  insertToken(token: StoredRefreshToken): Promise<void>;
  /**
   * Inserts the token unless one with its hash exists: true for the one caller that created it.
   * A unique-key insert is the only write FerretDB makes atomic under concurrency (its
   * conditional updates are read-modify-write), so rotation claims a parent by inserting its
   * deterministic successor.
   */
  insertTokenIfAbsent(token: StoredRefreshToken): Promise<boolean>;
  findToken(projectId: ProjectId, hash: string): Promise<StoredRefreshToken | null>;
  /** Informational: when and into what the token was rotated (decisions use the successor's existence). */
  markUsed(projectId: ProjectId, hash: string, childHash: string, at: Date): Promise<void>;
  deleteProject(projectId: ProjectId): Promise<void>;
  deleteUser(projectId: ProjectId, userId: string): Promise<void>;
  purgeExpired(cutoff: Date, limit: number): Promise<number>;
}

/**
 * Race-free counters for one-time codes. On MongoDB they are unique-key inserts (see
 * insertTokenIfAbsent): attempt n of a code is a document `<codeId>:n`, its use a document
 * `<codeId>:used`. On PostgreSQL they are conditional upserts of one row per code.
 */
export interface CodeClaims {
  /** Takes one of the code's `max` attempts; false when all are taken. */
  reserveAttempt(projectId: ProjectId, codeId: string, max: number, expiresAt: Date): Promise<boolean>;
  exhausted(projectId: ProjectId, codeId: string, max: number): Promise<boolean>;
  /** True for exactly one caller per code. */
  claimUse(projectId: ProjectId, codeId: string, expiresAt: Date): Promise<boolean>;
  deleteProject(projectId: ProjectId): Promise<void>;
  purgeExpired(cutoff: Date, limit: number): Promise<number>;
}

export interface UsersSchemaRepository {
  get(projectId: ProjectId): Promise<SchemaField[] | null>;
  put(projectId: ProjectId, fields: SchemaField[]): Promise<void>;
  deleteProject(projectId: ProjectId): Promise<void>;
}

/**
 * Login attempts per account (project + normalized email), whether or not the account exists:
 * a temporary backoff, never a permanent lock. Every attempt counts; a successful one clears it.
 */
export interface LoginThrottle {
  /** Takes one attempt; `retryAfterSeconds` when the account's attempts are used up for now. */
  attempt(projectId: ProjectId, email: string): Promise<{ retryAfterSeconds?: number }>;
  succeeded(projectId: ProjectId, email: string): Promise<void>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  needsRehash(hash: string): boolean;
  /** Costs what a real verify costs; for unknown accounts, so timing says nothing. */
  dummyVerify(password: string): Promise<void>;
}

/** What password hashing reports for metrics. */
export interface PasswordHashObserver {
  /** One argon2 computation (not its wait for a slot). */
  computed(operation: 'hash' | 'verify', seconds: number): void;
  /** Calls waiting for a slot, read when metrics are scraped. */
  watchQueue(depth: () => number): void;
}

/**
 * How a login attempt ended: tokens issued, wrong email or password, refused by the account
 * throttle, email not verified yet, hashing saturated (503), or another error.
 */
export type LoginOutcome = 'success' | 'failure' | 'throttled' | 'unverified' | 'busy' | 'error';

/** What the end-user use cases report for metrics. */
export interface AuthObserver {
  login(outcome: LoginOutcome): void;
}

/**
 * The audit log of admin actions (the auth service keeps every service's entries). Append-only:
 * no API writes or deletes entries, and deleting a project leaves its entries in place.
 */
export interface AuditLog {
  /** Keeps the entry unless one with its id is already kept. */
  append(entry: AuditEntry): Promise<void>;
  /** Newest first by (at, id), strictly before `before` when given. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
}
