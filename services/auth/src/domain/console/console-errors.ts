import { AppError, errors } from '@baas/common';

/** The console's stable error codes (docs/api.md). */
export const consoleErrors = {
  sessionRequired: () =>
    errors.unauthorized('CONSOLE_SESSION_REQUIRED', 'Sign in to the console first (no live console session)'),
  sessionInvalid: () =>
    errors.unauthorized('CONSOLE_SESSION_INVALID', 'Unknown, expired or revoked console session'),
  csrfTokenInvalid: () =>
    errors.forbidden('CSRF_TOKEN_INVALID', 'Missing or wrong x-csrf-token for this console session'),
  invitationNotFound: () =>
    errors.notFound('INVITATION_NOT_FOUND', 'Unknown, expired or already used invitation'),
  accountNotFound: () => errors.notFound('ACCOUNT_NOT_FOUND', 'Console account not found'),
  memberNotFound: () => errors.notFound('MEMBER_NOT_FOUND', 'This account is not a member of the project'),
  projectNotFound: () => errors.notFound('PROJECT_NOT_FOUND', 'Project not found'),
  emailTaken: () => new AppError(409, 'EMAIL_TAKEN', 'A console account with this email exists'),
  alreadyMember: () =>
    new AppError(409, 'ALREADY_MEMBER', 'The account with this email already has a role on the project'),
  lastOwner: () =>
    new AppError(409, 'LAST_OWNER', 'The project would have no owner left: make another member owner first'),
  passwordRequired: () =>
    errors.validation('Validation failed', [
      { path: 'password', message: 'is required: no console account has this email yet' },
    ]),
  platformAdminRequired: () =>
    errors.forbidden('PLATFORM_ADMIN_REQUIRED', 'Only platform admins may do this'),
  insufficientRole: () =>
    errors.forbidden('INSUFFICIENT_ROLE', 'Your role on this project does not allow this'),
};
