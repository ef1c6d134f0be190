import type { ProjectId } from '@baas/common';

export type CodePurpose = 'verify_email' | 'reset_password';

/** A one-time code as stored: only digests, bound to its purpose and user. */
export interface StoredCode {
  otpHash: string;
  tokenHash: string;
  attempts: number;
  expiresAt: Date;
  createdAt: Date;
}

export interface User {
  id: string;
  projectId: ProjectId;
  email: string;
  emailVerified: boolean;
  passwordHash: string;
  /** Extra fields of the users schema (username, avatar, preferences, ...). */
  profile: Record<string, unknown>;
  codes: Partial<Record<CodePurpose, StoredCode>>;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields the server owns: never taken from a signup or profile body. */
export const RESERVED_FIELDS = new Set([
  '_id',
  'id',
  'email',
  'emailLower',
  'password',
  'passwordHash',
  'emailVerified',
  'role',
  'roles',
  'projectId',
  'createdAt',
  'updatedAt',
  'deletedAt',
  'isDeleted',
  'codes',
  'profile',
  'passwordChangedAt',
  'token',
  'accessToken',
  'refreshToken',
]);

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What the user sees about themselves: never the password hash or codes. */
export function selfView(u: User) {
  return {
    ...u.profile,
    _id: u.id,
    email: u.email,
    emailVerified: u.emailVerified,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}

/** What anyone with the project key may see: no email, no password, no verification state. */
export function publicView(u: User) {
  return { ...u.profile, _id: u.id, createdAt: u.createdAt.toISOString() };
}
