import { AppError, errors } from '@baas/common';

/** The auth service's stable error codes (contract: the same 401 for unknown email and wrong password). */
export const authErrors = {
  invalidCredentials: () => errors.unauthorized('INVALID_CREDENTIALS', 'Invalid email or password'),
  signupsDisabled: () => errors.forbidden('SIGNUPS_DISABLED', 'Public signups are disabled for this project'),
  emailNotVerified: () => errors.forbidden('EMAIL_NOT_VERIFIED', 'Email address not verified'),
  duplicateEmail: () =>
    errors.duplicateValue('Email already registered', [{ path: 'email', message: 'already registered' }]),
  invalidToken: (message = 'Invalid or expired access token') =>
    errors.unauthorized('INVALID_TOKEN', message),
  tokenRequired: () => errors.unauthorized('TOKEN_REQUIRED', 'Bearer access token required'),
  refreshTokenRequired: () => errors.unauthorized('REFRESH_TOKEN_REQUIRED', 'Refresh token required'),
  invalidRefreshToken: () => errors.unauthorized('INVALID_REFRESH_TOKEN', 'Invalid or expired refresh token'),
  refreshTokenReused: () =>
    errors.unauthorized('REFRESH_TOKEN_REUSED', 'Refresh token already used; the session has been revoked'),
  invalidCode: () => errors.badRequest('INVALID_CODE', 'Invalid or expired code'),
  invalidCurrentPassword: () =>
    errors.badRequest('INVALID_CURRENT_PASSWORD', 'Current password is incorrect'),
  fieldNotEditable: (keys: string[]) =>
    errors.badRequest(
      'FIELD_NOT_EDITABLE',
      'These fields cannot be set here',
      keys.map((k) => ({ path: k, message: 'managed by the server' })),
    ),
  loginThrottled: (retryAfterSeconds: number) =>
    errors.rateLimited(retryAfterSeconds, 'Too many login attempts for this account, retry later'),
  userNotFound: () => errors.notFound('USER_NOT_FOUND', 'User not found'),
  busy: () =>
    new AppError(
      503,
      'SERVICE_UNAVAILABLE',
      'Too many password operations in progress, retry shortly',
      undefined,
      {
        'Retry-After': '1',
      },
    ),
};
