import type { ConsoleRole, KeyType, ProjectId, EventEnvelope } from '@baas/common';
import type { Project, StoredKey, StoredSettings } from './domain/projects/project';
import type { StoredSigningKey } from './domain/keys/signing-key';
import type { CodePurpose, StoredCode, User } from './domain/users/user';
import type { SchemaField } from './domain/users/users-schema';
import type { AuditEntry, AuditQuery } from './domain/audit/audit-entry';
import type {
  ConsoleAccount,
  ConsoleInvitation,
  ConsoleMembershipRecord,
  ConsoleResetCode,
  ConsoleSessionRecord,
  ProjectMember,
} from './domain/console/account';

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
  /**
   * Live projects newest first (by id), strictly before the id `before` when given, only those
   * of `ids` when given; at most `limit`.
   */
  list(opts: { limit: number; before?: string; ids?: readonly ProjectId[] }): Promise<Project[]>;
}

/** Tells every gateway to drop what it cached, at once (core NATS). */
export interface CacheInvalidator {
  /** A project's keys or settings changed, or it was deleted. */
  projectChanged(projectId: ProjectId): void;
  /** A console account's sessions, memberships or flags changed (or it was deleted). */
  consoleAccountChanged(accountId: string): void;
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
  /**
   * A new family and its first refresh token, and the sign-in's audit entry when given
   * (PostgreSQL: one statement, one commit; MongoDB: the entry after the session's documents).
   */
  startFamily(family: SessionFamily, first: StoredRefreshToken, record?: AuditEntry): Promise<void>;
  findFamily(projectId: ProjectId, familyId: string): Promise<SessionFamily | null>;
  revokeFamily(projectId: ProjectId, familyId: string, reason: string, at: Date): Promise<void>;
  revokeUserFamilies(
    projectId: ProjectId,
    userId: string,
    reason: string,
    at: Date,
    exceptFamilyId?: string,
  ): Promise<number>;
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
 * Login attempts per account (realm + normalized email), whether or not the account exists:
 * a temporary backoff, never a permanent lock. Every attempt counts; a successful one clears it.
 * The realm is the end user's project id, or CONSOLE_LOGIN_REALM for console accounts (never a
 * project id: those are 24 hex digits).
 */
export interface LoginThrottle {
  /** Takes one attempt; `retryAfterSeconds` when the account's attempts are used up for now. */
  attempt(
    realm: ProjectId | typeof CONSOLE_LOGIN_REALM,
    email: string,
  ): Promise<{ retryAfterSeconds?: number }>;
  succeeded(realm: ProjectId | typeof CONSOLE_LOGIN_REALM, email: string): Promise<void>;
}

/** The login-throttle realm of console accounts. */
export const CONSOLE_LOGIN_REALM = 'console';

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

/** How a console sign-in ended (no `unverified`: console accounts have no verification step). */
export type ConsoleLoginOutcome = Exclude<LoginOutcome, 'unverified'>;

/** What the console use cases report for metrics. */
export interface ConsoleObserver {
  login(outcome: ConsoleLoginOutcome): void;
}

/**
 * The audit log of admin actions and end users' security events (the auth service keeps every
 * service's entries). Append-only: no API writes or deletes entries, and deleting a project leaves
 * its entries in place; only the janitor's retention removes the oldest.
 */
export interface AuditLog {
  /** Keeps the entry unless one with its id is already kept. */
  append(entry: AuditEntry): Promise<void>;
  /** Newest first by (at, id), strictly before `before` when given. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /** Deletes up to `limit` entries older than `cutoff`, oldest first; how many it deleted. */
  purgeBefore(cutoff: Date, limit: number): Promise<number>;
}

/** Another console account holds this email. */
export class DuplicateConsoleEmailError extends Error {}

/**
 * Console accounts (platform-wide, no project), with their password-reset codes. Deleting an
 * account deletes its memberships, sessions and reset code too.
 */
export interface ConsoleAccountRepository {
  /** Throws DuplicateConsoleEmailError when the normalized email is taken. */
  insert(account: ConsoleAccount): Promise<void>;
  findById(id: string): Promise<ConsoleAccount | null>;
  /** By normalized email. */
  findByEmail(email: string): Promise<ConsoleAccount | null>;
  /**
   * Newest first (by id), strictly before the id `before` when given, only those whose normalized
   * email contains `emailContains` when given; at most `limit`.
   */
  list(opts: { limit: number; before?: string; emailContains?: string }): Promise<ConsoleAccount[]>;
  setPlatformAdmin(id: string, platformAdmin: boolean, at: Date): Promise<ConsoleAccount | null>;
  /** Replaces the hash only if it is still `expectedHash` (no lost update with a concurrent change). */
  replacePasswordHash(id: string, expectedHash: string, newHash: string, at: Date): Promise<boolean>;
  /** False when there was no such account. */
  delete(id: string): Promise<boolean>;
  /**
   * Stores the account's reset code (replacing a previous one) with its events, unless one was
   * issued after `notIssuedAfter`; false when nothing was written (or the account is gone).
   */
  putResetCode(code: ConsoleResetCode, events: EventEnvelope[], notIssuedAfter: Date): Promise<boolean>;
  /** The live code with this token digest. */
  findResetCode(tokenHash: string, now: Date): Promise<ConsoleResetCode | null>;
  /**
   * Uses the code and sets the new password hash: true for exactly one caller per code, and only
   * while it is live.
   */
  consumeResetCode(
    accountId: string,
    tokenHash: string,
    newPasswordHash: string,
    now: Date,
  ): Promise<boolean>;
  /** Janitor: expired reset codes (and their single-use records), at most `limit`. */
  purgeExpired(cutoff: Date, limit: number): Promise<number>;
}

/** Console sessions, found by the SHA-256 of their token. */
export interface ConsoleSessionRepository {
  insert(session: ConsoleSessionRecord): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<ConsoleSessionRecord | null>;
  /** False when it was already revoked (or is unknown). */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Revokes every live session of the account but `exceptId`; how many. */
  revokeAccount(accountId: string, at: Date, exceptId?: string): Promise<number>;
  /** Janitor: sessions expired, or revoked, before `cutoff`; at most `limit`. */
  purgeExpired(cutoff: Date, limit: number): Promise<number>;
}

/**
 * One change to a project's members, decided on the members as they are when the change is
 * applied: give `accountId` the role (inserting or updating its membership), or remove it
 * (`role: null`), with the events that describe it.
 */
export interface MembershipChange {
  accountId: string;
  role: ConsoleRole | null;
  events: EventEnvelope[];
}

/** Memberships (account x project x role) and invitations to projects. */
export interface ConsoleMemberRepository {
  ofAccount(accountId: string): Promise<ConsoleMembershipRecord[]>;
  ofAccounts(accountIds: readonly string[]): Promise<ConsoleMembershipRecord[]>;
  /** The project's members with their emails, oldest membership first. */
  ofProject(projectId: ProjectId): Promise<ProjectMember[]>;
  /**
   * Applies what `plan` decides from the project's current members (it may throw to refuse, or
   * return null to write nothing), serialised with every other change to the project's members
   * (a row lock on PostgreSQL; in-process on MongoDB). False when the project is not live.
   */
  change(
    projectId: ProjectId,
    plan: (members: readonly ConsoleMembershipRecord[]) => MembershipChange | null,
  ): Promise<boolean>;
  /**
   * Stores an invitation with its events; a pending invitation of the same project and email
   * stops working (the newest link wins). False when the project is not live.
   */
  insertInvitation(invitation: ConsoleInvitation, events: EventEnvelope[]): Promise<boolean>;
  findInvitation(tokenHash: string): Promise<ConsoleInvitation | null>;
  /** The project's pending invitations (not accepted, not expired), newest first. */
  pendingInvitations(projectId: ProjectId, now: Date): Promise<ConsoleInvitation[]>;
  /** Marks a pending invitation accepted: true for exactly one caller. */
  claimInvitation(id: string, now: Date): Promise<boolean>;
  /** Deletes a pending invitation of the project; false when there is none. */
  cancelInvitation(projectId: ProjectId, id: string, now: Date): Promise<boolean>;
  /** On project deletion: its memberships and invitations go; the accounts that were members. */
  deleteProject(projectId: ProjectId): Promise<string[]>;
  /** Janitor: invitations expired before `cutoff` (and their single-use records), at most `limit`. */
  purgeExpired(cutoff: Date, limit: number): Promise<number>;
}
