import type { ConsoleRole, ProjectId } from '@baas/common';

/**
 * A console account: a person who signs in to the web console (email + password, a cookie
 * session) and reaches the projects it holds a role on, or every project as a platform admin.
 * Not an end user of any project.
 */
export interface ConsoleAccount {
  /** 24 hex, like every other id. */
  id: string;
  /** As given (trimmed); unique platform-wide by its normalized form. */
  email: string;
  passwordHash: string;
  platformAdmin: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** An account's role on one project. */
export interface ConsoleMembershipRecord {
  accountId: string;
  projectId: ProjectId;
  role: ConsoleRole;
  createdAt: Date;
}

/** A member of a project as its members list shows it. */
export interface ProjectMember {
  accountId: string;
  email: string;
  role: ConsoleRole;
  createdAt: Date;
}

/** A console session (the cookie): only the token's SHA-256 is stored. */
export interface ConsoleSessionRecord {
  id: string;
  accountId: string;
  tokenHash: string;
  createdAt: Date;
  /** Absolute: a session is never extended. */
  expiresAt: Date;
  revokedAt?: Date;
  clientIp: string | null;
  userAgent: string | null;
}

/** An invitation to a project by email, single use, only the digest of its link token stored. */
export interface ConsoleInvitation {
  id: string;
  projectId: ProjectId;
  email: string;
  role: ConsoleRole;
  tokenHash: string;
  /** The inviting account; null when the platform admin token invited. */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt?: Date;
}

/** An account's password-reset code (one live code per account). */
export interface ConsoleResetCode {
  accountId: string;
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

export function sessionLive(s: ConsoleSessionRecord, now: Date): boolean {
  return !s.revokedAt && s.expiresAt > now;
}

export function invitationPending(i: ConsoleInvitation, now: Date): boolean {
  return !i.acceptedAt && i.expiresAt > now;
}

/** What a platform admin sees of an account: never the password hash. */
export function accountView(a: ConsoleAccount, memberships: readonly ConsoleMembershipRecord[]) {
  return {
    id: a.id,
    email: a.email,
    platformAdmin: a.platformAdmin,
    createdAt: a.createdAt.toISOString(),
    memberships: memberships.map((m) => ({ projectId: m.projectId, role: m.role })),
  };
}
export type AccountView = ReturnType<typeof accountView>;

export function memberView(m: ProjectMember) {
  return { accountId: m.accountId, email: m.email, role: m.role, createdAt: m.createdAt.toISOString() };
}

export function invitationView(i: ConsoleInvitation) {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    createdAt: i.createdAt.toISOString(),
    expiresAt: i.expiresAt.toISOString(),
  };
}
