import { z } from 'zod';
import { CONSOLE_ROLES, adminListParams } from '@baas/common';
import { emailSchema, passwordSchema } from '../domain/users/password-policy';
import { changePasswordSchema, loginSchema } from './user-auth.schemas';

/*
 * The console's request schemas: the same email and password rules as end users' (8-128
 * characters, emails of at most 254), validated at the edge and documented from here.
 */

export const consoleRoleSchema = z.enum(CONSOLE_ROLES);

/** A link token from a mail (invitation, password reset). */
const linkToken = z.string().min(1).max(256);

export const consoleLoginSchema = loginSchema.strict();
export const consolePasswordSchema = changePasswordSchema.strict();
export const consoleResetRequestSchema = z.object({ email: z.string().trim().min(1).max(254) }).strict();
export const consoleResetSchema = z.object({ token: linkToken, newPassword: passwordSchema }).strict();
export const invitationTokenSchema = z.object({ token: linkToken }).strict();
export const acceptInvitationSchema = z
  .object({
    token: linkToken,
    password: passwordSchema
      .optional()
      .describe('Required when no console account has the invited email (it creates one).'),
  })
  .strict();

export const createAccountSchema = z
  .object({ email: emailSchema, password: passwordSchema, platformAdmin: z.boolean().optional() })
  .strict();
export const patchAccountSchema = z.object({ platformAdmin: z.boolean() }).strict();
export const accountListQuery = z
  .object({
    ...adminListParams,
    search: z
      .string()
      .max(254)
      .optional()
      .describe('Only accounts whose email contains this text (case-insensitive).'),
  })
  .strict();

export const inviteMemberSchema = z.object({ email: emailSchema, role: consoleRoleSchema }).strict();
export const memberRoleSchema = z.object({ role: consoleRoleSchema }).strict();

export const resolveSessionSchema = z.object({ tokenHash: z.string().regex(/^[a-f0-9]{64}$/) }).strict();
