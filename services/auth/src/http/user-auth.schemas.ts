import { z } from 'zod';
import { errors, parseInput } from '@baas/common';
import { emailSchema, passwordSchema } from '../domain/users/password-policy';
import { RESERVED_FIELDS } from '../domain/users/user';
import { unsafeKeys } from '../domain/users/users-schema';
import { authErrors } from '../domain/users/auth-errors';

/** Login does not apply the length minimum (policy may change), only the maximum (before hashing). */
export const loginSchema = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(128, 'must be at most 128 characters'),
});

export const changePasswordSchema = z.object({
  currentPassword: z.string().min(1).max(128),
  newPassword: passwordSchema,
});

export const emailOnlySchema = z.object({ email: z.string().trim().min(1).max(254) });

const linkToken = z.string().min(1).max(256);
const otp = z.string().regex(/^[0-9]{6,8}$/, 'must be the numeric code from the email');

/** `{ token }` or `{ email, otp }` (contract). */
export const codeInputSchema = z.union([
  z.object({ token: linkToken }),
  z.object({ email: z.string().trim().min(1).max(254), otp }),
]);

export const resetPasswordSchema = z.union([
  z.object({ token: linkToken, newPassword: passwordSchema }),
  z.object({ email: z.string().trim().min(1).max(254), otp, newPassword: passwordSchema }),
]);

export const signupCore = z.object({ email: emailSchema, password: passwordSchema });

/**
 * Signup body: email and password, plus extra profile fields. Top-level `$` keys are dropped
 * (spec: sanitized); server-owned fields are a 400 (mass assignment); unsafe nested names too.
 */
export function parseSignupBody(body: Record<string, unknown>) {
  const clean = Object.fromEntries(Object.entries(body).filter(([k]) => !k.startsWith('$')));
  const { email, password, ...profile } = clean;
  const core = parseInput(signupCore, { email, password });
  const forbidden = Object.keys(profile).filter((k) => RESERVED_FIELDS.has(k));
  if (forbidden.length > 0) throw authErrors.fieldNotEditable(forbidden);
  const unsafe = unsafeKeys(profile);
  if (unsafe.length > 0) throw errors.validation('Invalid field names', unsafe);
  return { email: core.email, password: core.password, profile };
}
