import { z } from 'zod';
import {
  AUDIT_ACTIONS,
  CONSOLE_CSRF_HEADER,
  adminPage,
  defineRoutes,
  envelope,
  hexId,
  okMessage,
  SIGNING_KEY_PUBLISH_AHEAD_MS,
} from '@baas/common';
import { projectListQuery, userListQuery } from '../domain/admin/admin-list';
import { usersSchemaBody } from '../domain/users/users-schema';
import { createSchema, patchSchema, rotateSchema } from './admin-projects.routes';
import {
  changePasswordSchema,
  codeInputSchema,
  emailOnlySchema,
  loginSchema,
  resetPasswordSchema,
  signupCore,
} from './user-auth.schemas';
import {
  acceptInvitationSchema,
  accountListQuery,
  consoleLoginSchema,
  consolePasswordSchema,
  consoleResetRequestSchema,
  consoleResetSchema,
  consoleRoleSchema,
  createAccountSchema,
  invitationTokenSchema,
  inviteMemberSchema,
  memberRoleSchema,
  patchAccountSchema,
} from './console.schemas';

/*
 * The auth service's routes as clients reach them through the gateway, from the schemas the
 * handlers validate with (the OpenAPI document is generated from this registry: `npm run openapi`).
 */

const projectIdParams = z.object({ projectId: hexId.describe('The project id (24 hex).') });
const iso = z.string().describe('ISO-8601 date-time');

const settingsView = z.object({
  publicSignups: z.boolean(),
  allowedOrigins: z.array(z.string()),
  requireEmailVerification: z.boolean(),
  limits: z.object({
    storageBytes: z.number().int(),
    documents: z.number().int(),
    mailMonthly: z.number().int(),
  }),
});
const keyInfo = z.object({ prefix: z.string(), createdAt: iso });
const projectView = z.object({
  id: hexId,
  name: z.string(),
  settings: settingsView,
  keys: z.object({ publishable: keyInfo, secret: keyInfo }),
  createdAt: iso,
  updatedAt: iso,
});
const exampleSettings = {
  publicSignups: true,
  allowedOrigins: [],
  requireEmailVerification: false,
  limits: { storageBytes: 104857600, documents: 100000, mailMonthly: 1000 },
};
const exampleProject = {
  id: '665f1c2ab4d3e2f1a0b9c8d7',
  name: 'My app',
  settings: exampleSettings,
  keys: {
    publishable: { prefix: 'pk_live_AbCd', createdAt: '2025-01-05T10:00:00.000Z' },
    secret: { prefix: 'sk_live_EfGh', createdAt: '2025-01-05T10:00:00.000Z' },
  },
  createdAt: '2025-01-05T10:00:00.000Z',
  updatedAt: '2025-01-05T10:00:00.000Z',
};

/** A user as the user (and the operator) sees it: profile fields plus these. */
const userView = z
  .object({ _id: hexId, email: z.string(), emailVerified: z.boolean(), createdAt: iso, updatedAt: iso })
  .catchall(z.unknown());
const exampleUser = {
  _id: '665f1c2ab4d3e2f1a0b9c8e1',
  email: 'ada@example.com',
  emailVerified: false,
  username: 'ada',
  createdAt: '2025-01-05T10:00:00.000Z',
  updatedAt: '2025-01-05T10:00:00.000Z',
};
const publicUserView = z.object({ _id: hexId, createdAt: iso }).catchall(z.unknown());

const tokens = {
  accessToken: z.string().describe('EdDSA JWT, sent as `Authorization: Bearer <accessToken>`.'),
  token: z.string().describe('Deprecated alias of `accessToken`.'),
  expiresIn: z.number().int().describe('Lifetime of the access token in seconds.'),
  refreshToken: z
    .string()
    .optional()
    .describe('Only with `x-refresh-token-mode: header`; otherwise the `refreshToken` cookie carries it.'),
};
const tokenAnswer = z.object({ success: z.literal(true), message: z.string(), user: userView, ...tokens });
const userAnswer = z.object({
  success: z.literal(true),
  message: z.string(),
  data: userView,
  user: userView,
});
const refreshModeHeader = z.object({
  'x-refresh-token-mode': z
    .enum(['header'])
    .optional()
    .describe('`header`: the refresh token comes back in the body instead of a cookie.'),
});
const refreshTokenHeaders = z.object({
  'x-refresh-token': z
    .string()
    .optional()
    .describe('The refresh token (header mode); else the `refreshToken` body field or the cookie.'),
  'x-refresh-token-mode': refreshModeHeader.shape['x-refresh-token-mode'],
});
const exampleTokens = {
  success: true,
  message: 'Logged in',
  user: exampleUser,
  accessToken: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2ln',
  token: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2ln',
  expiresIn: 900,
};

const auditEntry = z.object({
  id: z.string(),
  at: iso,
  projectId: hexId.nullable(),
  action: z.enum(AUDIT_ACTIONS),
  actor: z.object({
    type: z
      .enum(['platform-admin', 'console-account', 'end-user', 'anonymous'])
      .describe(
        'Who acted: the platform admin token, a console account, an end user of the project (a sign-in, a password change) or someone not known to be one (a failed sign-in, a replayed refresh token, a reset code).',
      ),
    id: z
      .string()
      .optional()
      .describe('The console account or the end user (types `console-account`, `end-user`).'),
    email: z.string().optional().describe("The console account's email when it acted."),
  }),
  target: z.object({ type: z.string(), id: z.string() }),
  requestId: z.string().nullable(),
  clientIp: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
/** The audit log's query (parsed by `parseAuditQuery`, which applies the same rules). */
const auditQuery = z.object({
  limit: projectListQuery.shape.limit,
  cursor: projectListQuery.shape.cursor,
  action: z.enum(AUDIT_ACTIONS).optional(),
});

// ---- console ----
const sessionView = z.object({
  account: z.object({ id: hexId, email: z.string(), platformAdmin: z.boolean() }),
  memberships: z.array(z.object({ projectId: hexId, projectName: z.string(), role: consoleRoleSchema })),
  csrfToken: z
    .string()
    .describe(`Send it as \`${CONSOLE_CSRF_HEADER}\` on every state-changing request made with the cookie.`),
  expiresAt: iso.describe('The session ends then (absolute; sign in again).'),
});
const exampleSession = {
  success: true,
  data: {
    account: { id: '665f1c2ab4d3e2f1a0b9c8f0', email: 'ops@example.com', platformAdmin: false },
    memberships: [{ projectId: '665f1c2ab4d3e2f1a0b9c8d7', projectName: 'My app', role: 'developer' }],
    csrfToken: 'q3N0c2V0LWNzcmYtdG9rZW4tZXhhbXBsZS0xMjM0NTY',
    expiresAt: '2025-01-05T18:00:00.000Z',
  },
  message: 'Signed in',
};
const setsCookie =
  'Sets the session cookie `baas_console` (HttpOnly, SameSite=Strict, Path=/api, Max-Age the session lifetime, Secure over https).';
const csrfHeader = z.object({
  [CONSOLE_CSRF_HEADER]: z.string().describe("The session's `csrfToken`."),
});
const emptyData = envelope(z.object({}));
const accountView = z.object({
  id: hexId,
  email: z.string(),
  platformAdmin: z.boolean(),
  createdAt: iso,
  memberships: z.array(z.object({ projectId: hexId, role: consoleRoleSchema })),
});
const accountIdParams = z.object({ accountId: hexId.describe('The console account id (24 hex).') });
const memberView = z.object({ accountId: hexId, email: z.string(), role: consoleRoleSchema, createdAt: iso });
const invitationView = z.object({
  id: hexId,
  email: z.string(),
  role: consoleRoleSchema,
  createdAt: iso,
  expiresAt: iso,
});

const consoleRoutes = defineRoutes([
  {
    method: 'post',
    path: '/api/console/login',
    operationId: 'consoleLogin',
    summary: 'Sign in to the console',
    description: `Email and password of a console account. ${setsCookie} Throttled per account like end-user login.`,
    tag: 'Console',
    service: 'auth',
    security: 'public',
    body: {
      schema: consoleLoginSchema,
      example: { email: 'ops@example.com', password: 'correct horse battery' },
    },
    responses: { 200: { description: 'Signed in.', schema: envelope(sessionView), example: exampleSession } },
    errors: { 401: ['INVALID_CREDENTIALS'] },
  },
  {
    method: 'get',
    path: '/api/console/session',
    operationId: 'getConsoleSession',
    summary: 'The current console session',
    description: 'What the console restores on load: the account, its projects and roles, the CSRF token.',
    tag: 'Console',
    service: 'auth',
    security: 'consoleSession',
    responses: { 200: { description: 'The session.', schema: envelope(sessionView) } },
  },
  {
    method: 'post',
    path: '/api/console/logout',
    operationId: 'consoleLogout',
    summary: 'Sign out (the session ends, the cookie is cleared)',
    tag: 'Console',
    service: 'auth',
    security: 'consoleSession',
    headers: csrfHeader,
    responses: { 200: { description: 'Signed out.', schema: emptyData } },
    errors: { 403: ['CSRF_TOKEN_INVALID'] },
  },
  {
    method: 'post',
    path: '/api/console/password',
    operationId: 'changeConsolePassword',
    summary: "Change the account's password (its other sessions end)",
    tag: 'Console',
    service: 'auth',
    security: 'consoleSession',
    headers: csrfHeader,
    body: { schema: consolePasswordSchema },
    responses: {
      200: {
        description: 'Changed.',
        schema: envelope(z.object({ revokedSessions: z.number().int() })),
      },
    },
    errors: { 400: ['INVALID_CURRENT_PASSWORD'], 403: ['CSRF_TOKEN_INVALID'] },
  },
  {
    method: 'post',
    path: '/api/console/password-reset/request',
    operationId: 'requestConsolePasswordReset',
    summary: 'Mail a password-reset link to a console account',
    description:
      'Answers 202 whether or not an account has the email. The link (valid 1 hour) opens `#/reset-password?token=` in the console.',
    tag: 'Console',
    service: 'auth',
    security: 'public',
    body: { schema: consoleResetRequestSchema, example: { email: 'ops@example.com' } },
    responses: { 202: { description: 'Accepted.', schema: emptyData } },
  },
  {
    method: 'post',
    path: '/api/console/password-reset',
    operationId: 'resetConsolePassword',
    summary: 'Set a new password with the link token (every session of the account ends)',
    tag: 'Console',
    service: 'auth',
    security: 'public',
    body: { schema: consoleResetSchema },
    responses: { 200: { description: 'Reset.', schema: emptyData } },
    errors: { 400: ['INVALID_CODE'] },
  },
  {
    method: 'post',
    path: '/api/console/invitations/inspect',
    operationId: 'inspectConsoleInvitation',
    summary: 'What an invitation link grants',
    tag: 'Console',
    service: 'auth',
    security: 'public',
    body: { schema: invitationTokenSchema },
    responses: {
      200: {
        description: 'The invitation.',
        schema: envelope(
          z.object({
            email: z.string(),
            projectId: hexId,
            projectName: z.string(),
            role: consoleRoleSchema,
            accountExists: z
              .boolean()
              .describe('True: accepting signs in to that account; false: a password creates one.'),
            expiresAt: iso,
          }),
        ),
      },
    },
    errors: { 404: ['INVITATION_NOT_FOUND'] },
  },
  {
    method: 'post',
    path: '/api/console/invitations/accept',
    operationId: 'acceptConsoleInvitation',
    summary: 'Accept an invitation and sign in',
    description: `Creates the account when none has the invited email (then \`password\` is required), gives it the invited role and uses the invitation up. ${setsCookie}`,
    tag: 'Console',
    service: 'auth',
    security: 'public',
    body: { schema: acceptInvitationSchema },
    responses: { 200: { description: 'Signed in.', schema: envelope(sessionView), example: exampleSession } },
    errors: { 404: ['INVITATION_NOT_FOUND'], 409: ['LAST_OWNER'] },
  },
  // ---- admin: console accounts (platform admins) ----
  {
    method: 'get',
    path: '/api/admin/console/accounts',
    operationId: 'listConsoleAccounts',
    summary: 'List console accounts, optionally by email',
    description: 'Newest first, by cursor. Platform admins only.',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    query: accountListQuery,
    responses: { 200: { description: 'One page of accounts.', schema: envelope(adminPage(accountView)) } },
    errors: { 403: ['PLATFORM_ADMIN_REQUIRED'] },
  },
  {
    method: 'post',
    path: '/api/admin/console/accounts',
    operationId: 'createConsoleAccount',
    summary: 'Create a console account',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    body: {
      schema: createAccountSchema,
      example: { email: 'ops@example.com', password: 'correct horse battery', platformAdmin: false },
    },
    responses: { 201: { description: 'Created.', schema: envelope(accountView) } },
    errors: { 403: ['PLATFORM_ADMIN_REQUIRED'], 409: ['EMAIL_TAKEN'] },
  },
  {
    method: 'patch',
    path: '/api/admin/console/accounts/{accountId}',
    operationId: 'updateConsoleAccount',
    summary: 'Grant or withdraw platform admin',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: accountIdParams,
    body: { schema: patchAccountSchema, example: { platformAdmin: true } },
    responses: { 200: { description: 'The account.', schema: envelope(accountView) } },
    errors: { 403: ['PLATFORM_ADMIN_REQUIRED'], 404: ['ACCOUNT_NOT_FOUND'] },
  },
  {
    method: 'delete',
    path: '/api/admin/console/accounts/{accountId}',
    operationId: 'deleteConsoleAccount',
    summary: 'Delete a console account (its memberships and sessions go with it)',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: accountIdParams,
    responses: { 200: { description: 'Deleted.', schema: envelope(z.object({ id: hexId })) } },
    errors: { 403: ['PLATFORM_ADMIN_REQUIRED'], 404: ['ACCOUNT_NOT_FOUND'] },
  },
  {
    method: 'post',
    path: '/api/admin/console/accounts/{accountId}/sessions/revoke',
    operationId: 'revokeConsoleAccountSessions',
    summary: 'Sign a console account out everywhere',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: accountIdParams,
    responses: {
      200: {
        description: 'How many sessions ended.',
        schema: envelope(z.object({ revoked: z.number().int() })),
      },
    },
    errors: { 403: ['PLATFORM_ADMIN_REQUIRED'], 404: ['ACCOUNT_NOT_FOUND'] },
  },
  // ---- admin: a project's members ----
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/members',
    operationId: 'listProjectMembers',
    summary: "A project's console members and pending invitations",
    description: 'Viewers and above.',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    responses: {
      200: {
        description: 'Members (oldest first) and invitations not yet accepted or expired (newest first).',
        schema: envelope(z.object({ members: z.array(memberView), invitations: z.array(invitationView) })),
      },
    },
    errors: { 403: ['INSUFFICIENT_ROLE'], 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'post',
    path: '/api/admin/projects/{projectId}/members',
    operationId: 'inviteProjectMember',
    summary: 'Invite an email to the project with a role',
    description:
      'Owners only. Mails a link (valid 7 days) to `#/accept-invitation?token=` in the console; a pending invitation of the same email stops working.',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    body: { schema: inviteMemberSchema, example: { email: 'dev@example.com', role: 'developer' } },
    responses: { 201: { description: 'The invitation.', schema: envelope(invitationView) } },
    errors: { 403: ['INSUFFICIENT_ROLE'], 404: ['PROJECT_NOT_FOUND'], 409: ['ALREADY_MEMBER'] },
  },
  {
    method: 'patch',
    path: '/api/admin/projects/{projectId}/members/{accountId}',
    operationId: 'changeProjectMemberRole',
    summary: "Change a member's role",
    description: 'Owners only. Demoting the last owner is refused.',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: projectIdParams.extend(accountIdParams.shape),
    body: { schema: memberRoleSchema, example: { role: 'viewer' } },
    responses: { 200: { description: 'The member.', schema: envelope(memberView) } },
    errors: {
      403: ['INSUFFICIENT_ROLE'],
      404: ['MEMBER_NOT_FOUND', 'PROJECT_NOT_FOUND'],
      409: ['LAST_OWNER'],
    },
  },
  {
    method: 'delete',
    path: '/api/admin/projects/{projectId}/members/{accountId}',
    operationId: 'removeProjectMember',
    summary: 'Remove a member from the project',
    description: 'Owners only. Removing the last owner is refused.',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: projectIdParams.extend(accountIdParams.shape),
    responses: { 200: { description: 'Removed.', schema: envelope(z.object({ accountId: hexId })) } },
    errors: {
      403: ['INSUFFICIENT_ROLE'],
      404: ['MEMBER_NOT_FOUND', 'PROJECT_NOT_FOUND'],
      409: ['LAST_OWNER'],
    },
  },
  {
    method: 'delete',
    path: '/api/admin/projects/{projectId}/members/invitations/{invitationId}',
    operationId: 'cancelProjectInvitation',
    summary: 'Cancel a pending invitation',
    description: 'Owners only. Its link stops working.',
    tag: 'Admin: console',
    service: 'auth',
    security: 'admin',
    params: projectIdParams.extend({ invitationId: hexId.describe('The invitation id (24 hex).') }),
    responses: { 200: { description: 'Cancelled.', schema: envelope(z.object({ id: hexId })) } },
    errors: { 403: ['INSUFFICIENT_ROLE'], 404: ['INVITATION_NOT_FOUND', 'PROJECT_NOT_FOUND'] },
  },
]);

export const authApiRoutes = defineRoutes([
  // ---- user auth ----
  {
    method: 'post',
    path: '/api/userAuth/signup',
    operationId: 'signup',
    summary: 'Sign up an end user',
    description:
      "Email and password plus any extra fields of the project's users schema. With `requireEmailVerification`, answers 201 without tokens (`emailVerificationRequired: true`).",
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    headers: refreshModeHeader,
    body: {
      schema: signupCore.catchall(z.unknown()),
      example: { email: 'ada@example.com', password: 'correct horse battery', username: 'ada' },
    },
    responses: {
      201: {
        description: 'Registered (tokens unless email verification is required).',
        schema: z.union([
          tokenAnswer,
          z.object({
            success: z.literal(true),
            message: z.string(),
            user: userView,
            emailVerificationRequired: z.literal(true),
          }),
        ]),
        example: { ...exampleTokens, message: 'User registered' },
      },
    },
    errors: {
      400: ['DUPLICATE_VALUE', 'FIELD_NOT_EDITABLE'],
      403: ['SIGNUPS_DISABLED'],
      503: ['SERVICE_UNAVAILABLE'],
    },
  },
  {
    method: 'post',
    path: '/api/userAuth/login',
    operationId: 'login',
    summary: 'Log in',
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    headers: refreshModeHeader,
    body: { schema: loginSchema, example: { email: 'ada@example.com', password: 'correct horse battery' } },
    responses: { 200: { description: 'Logged in.', schema: tokenAnswer, example: exampleTokens } },
    errors: { 401: ['INVALID_CREDENTIALS'], 403: ['EMAIL_NOT_VERIFIED'] },
  },
  {
    method: 'post',
    path: '/api/userAuth/refresh-token',
    operationId: 'refreshToken',
    summary: 'Rotate the refresh token and get a new access token',
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    headers: refreshTokenHeaders,
    responses: {
      200: {
        description: 'A new token pair; the presented refresh token is used up.',
        schema: z.object({ success: z.literal(true), message: z.string(), ...tokens }),
      },
    },
    errors: { 401: ['REFRESH_TOKEN_REQUIRED', 'INVALID_REFRESH_TOKEN', 'REFRESH_TOKEN_REUSED'] },
  },
  {
    method: 'post',
    path: '/api/userAuth/logout',
    operationId: 'logout',
    summary: 'Log out (revoke this login)',
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    headers: refreshTokenHeaders,
    responses: { 200: { description: 'Logged out.', schema: okMessage } },
    errors: { 401: ['REFRESH_TOKEN_REQUIRED'] },
  },
  {
    method: 'get',
    path: '/api/userAuth/me',
    operationId: 'getMe',
    summary: 'The current user',
    tag: 'User auth',
    service: 'auth',
    security: 'keyUser',
    responses: { 200: { description: 'The caller.', schema: userAnswer } },
  },
  {
    method: 'get',
    path: '/api/userAuth/public/{username}',
    operationId: 'getPublicProfile',
    summary: "A user's public profile",
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    params: z.object({ username: z.string().min(1).max(256) }),
    responses: {
      200: {
        description: 'No email, password or verification state.',
        schema: z.object({
          success: z.literal(true),
          message: z.string(),
          data: publicUserView,
          user: publicUserView,
        }),
      },
    },
    // text PostgreSQL cannot hold (a NUL, an unpaired surrogate) is refused as it is in a filter
    errors: { 400: ['VALIDATION_FAILED'], 404: ['USER_NOT_FOUND'] },
  },
  {
    method: 'put',
    path: '/api/userAuth/update-profile',
    operationId: 'updateProfile',
    summary: "Change the caller's profile fields",
    description: 'Profile fields only; `null` clears a field.',
    tag: 'User auth',
    service: 'auth',
    security: 'keyUser',
    body: { schema: z.record(z.string(), z.unknown()), example: { username: 'ada_l' } },
    responses: { 200: { description: 'The updated user.', schema: userAnswer } },
    errors: { 400: ['DUPLICATE_VALUE', 'FIELD_NOT_EDITABLE'] },
  },
  {
    method: 'put',
    path: '/api/userAuth/change-password',
    operationId: 'changePassword',
    summary: 'Change the password (other sessions end)',
    tag: 'User auth',
    service: 'auth',
    security: 'keyUser',
    body: { schema: changePasswordSchema },
    responses: { 200: { description: 'Changed.', schema: okMessage } },
    errors: { 400: ['INVALID_CURRENT_PASSWORD'], 503: ['SERVICE_UNAVAILABLE'] },
  },
  {
    method: 'post',
    path: '/api/userAuth/verify-email',
    operationId: 'verifyEmail',
    summary: 'Verify the email address with the link token or the emailed code',
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    body: { schema: codeInputSchema, example: { email: 'ada@example.com', otp: '12345678' } },
    responses: { 200: { description: 'Verified.', schema: okMessage } },
    errors: { 400: ['INVALID_CODE'] },
  },
  {
    method: 'post',
    path: '/api/userAuth/request-password-reset',
    operationId: 'requestPasswordReset',
    summary: 'Send a password reset mail',
    description: 'Answers 200 whether or not the email exists.',
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    body: { schema: emailOnlySchema },
    responses: { 200: { description: 'Accepted.', schema: okMessage } },
  },
  {
    method: 'post',
    path: '/api/userAuth/reset-password',
    operationId: 'resetPassword',
    summary: 'Set a new password with the link token or the emailed code (every session ends)',
    tag: 'User auth',
    service: 'auth',
    security: 'key',
    body: { schema: resetPasswordSchema },
    responses: { 200: { description: 'Reset.', schema: okMessage } },
    errors: { 400: ['INVALID_CODE'], 503: ['SERVICE_UNAVAILABLE'] },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getJwks',
    summary: 'Public keys that verify access tokens',
    tag: 'User auth',
    service: 'auth',
    security: 'public',
    responses: {
      200: {
        description: 'A JSON Web Key Set (Ed25519).',
        schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }),
      },
    },
  },
  // ---- admin: projects ----
  {
    method: 'get',
    path: '/api/admin/projects',
    operationId: 'listProjects',
    summary: 'List projects',
    description: 'Newest first, by cursor.',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    query: projectListQuery,
    responses: {
      200: {
        description: 'One page of projects.',
        schema: envelope(adminPage(projectView)),
        example: {
          success: true,
          data: { items: [exampleProject], cursor: '', nextCursor: null, limit: 20 },
          message: 'Projects',
        },
      },
    },
  },
  {
    method: 'post',
    path: '/api/admin/projects',
    operationId: 'createProject',
    summary: 'Create a project',
    description: 'The keys are shown only here and on rotation.',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    body: { schema: createSchema, example: { name: 'My app', settings: { publicSignups: false } } },
    responses: {
      201: {
        description: 'Created.',
        schema: z.object({
          id: hexId,
          name: z.string(),
          publishableKey: z.string(),
          secretKey: z.string(),
          settings: settingsView,
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}',
    operationId: 'getProject',
    summary: 'Get a project',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    responses: { 200: { description: 'The project.', schema: projectView, example: exampleProject } },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'patch',
    path: '/api/admin/projects/{projectId}',
    operationId: 'updateProject',
    summary: 'Rename a project or change its settings (merged)',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    body: { schema: patchSchema, example: { settings: { limits: { documents: 5000 } } } },
    responses: { 200: { description: 'The project.', schema: projectView } },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'delete',
    path: '/api/admin/projects/{projectId}',
    operationId: 'deleteProject',
    summary: 'Delete a project and everything it holds',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    responses: { 200: { description: 'Deleted.', schema: envelope(z.object({ id: hexId })) } },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'post',
    path: '/api/admin/projects/{projectId}/keys/rotate',
    operationId: 'rotateProjectKey',
    summary: 'Rotate a project key (the old one is refused at once)',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    body: { schema: rotateSchema, example: { type: 'secret' } },
    responses: {
      200: {
        description: 'Only the new key.',
        schema: z.object({ publishableKey: z.string().optional(), secretKey: z.string().optional() }),
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/audit',
    operationId: 'listProjectAudit',
    summary: "A project's audit log",
    tag: 'Admin: audit',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    query: auditQuery,
    responses: { 200: { description: 'Newest first.', schema: envelope(adminPage(auditEntry)) } },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/api/admin/audit',
    operationId: 'listAudit',
    summary: 'The whole audit log',
    tag: 'Admin: audit',
    service: 'auth',
    security: 'admin',
    query: auditQuery.extend({ projectId: hexId.optional().describe('Only this project.') }),
    responses: { 200: { description: 'Newest first.', schema: envelope(adminPage(auditEntry)) } },
    errors: { 403: ['PLATFORM_ADMIN_REQUIRED'] },
  },
  {
    method: 'post',
    path: '/api/admin/signing-keys/rotate',
    operationId: 'rotateSigningKey',
    summary: 'Rotate the access-token signing key',
    tag: 'Admin: projects',
    service: 'auth',
    security: 'admin',
    responses: {
      200: {
        description:
          'The new key is published at once; new tokens are signed with it from `signsFrom` on ' +
          `(${SIGNING_KEY_PUBLISH_AHEAD_MS / 1000} s later, so every service can fetch it first).`,
        schema: envelope(z.object({ kid: z.string(), signsFrom: iso, publishedKids: z.array(z.string()) })),
      },
    },
  },
  // ---- admin: users ----
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/users',
    operationId: 'listUsers',
    summary: "List a project's users, optionally by email",
    description: 'Newest first, by cursor.',
    tag: 'Admin: users',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    query: userListQuery,
    responses: {
      200: {
        description: 'One page of users.',
        schema: envelope(adminPage(userView)),
        example: {
          success: true,
          data: { items: [exampleUser], cursor: '', nextCursor: null, limit: 20 },
          message: 'Users',
        },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'delete',
    path: '/api/admin/projects/{projectId}/users/{userId}',
    operationId: 'deleteUser',
    summary: 'Delete a user (its sessions end)',
    tag: 'Admin: users',
    service: 'auth',
    security: 'admin',
    params: projectIdParams.extend({ userId: z.string() }),
    responses: { 200: { description: 'Deleted.', schema: envelope(z.object({ id: z.string() })) } },
    errors: { 404: ['PROJECT_NOT_FOUND', 'USER_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/users-schema',
    operationId: 'getUsersSchema',
    summary: "The extra fields of a project's users",
    tag: 'Admin: users',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    responses: {
      200: {
        description: 'The fields.',
        schema: envelope(z.object({ fields: z.array(z.record(z.string(), z.unknown())) })),
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'put',
    path: '/api/admin/projects/{projectId}/users-schema',
    operationId: 'putUsersSchema',
    summary: "Set the extra fields of a project's users",
    tag: 'Admin: users',
    service: 'auth',
    security: 'admin',
    params: projectIdParams,
    body: {
      schema: usersSchemaBody,
      example: { fields: [{ key: 'username', type: 'String', required: true, unique: true }] },
    },
    responses: {
      200: {
        description: 'Saved.',
        schema: envelope(z.object({ fields: z.array(z.record(z.string(), z.unknown())) })),
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  ...consoleRoutes,
]);
