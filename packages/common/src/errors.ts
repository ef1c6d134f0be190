/**
 * One error hierarchy for every service. An AppError carries a stable code, an HTTP status and
 * details that are safe to show a client; the express error handler renders it as the contract's
 * error body. Anything that is not an AppError becomes an opaque 500.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const errors = {
  validation: (message = 'Validation failed', details?: ErrorDetail[]) =>
    new AppError(400, 'VALIDATION_FAILED', message, details),
  malformedJson: () => new AppError(400, 'MALFORMED_JSON', 'Malformed JSON body'),
  badRequest: (code: string, message: string, details?: ErrorDetail[]) =>
    new AppError(400, code, message, details),
  duplicateValue: (message = 'Duplicate value', details?: ErrorDetail[]) =>
    new AppError(400, 'DUPLICATE_VALUE', message, details),
  missingApiKey: () => new AppError(401, 'MISSING_API_KEY', 'Missing API key'),
  invalidApiKey: () => new AppError(401, 'INVALID_API_KEY', 'Invalid API key'),
  unauthorized: (code = 'UNAUTHORIZED', message = 'Unauthorized') => new AppError(401, code, message),
  adminTokenRequired: () =>
    new AppError(401, 'ADMIN_TOKEN_REQUIRED', 'Missing or invalid platform admin token'),
  forbidden: (code = 'FORBIDDEN', message = 'Forbidden') => new AppError(403, code, message),
  originNotAllowed: () => new AppError(403, 'ORIGIN_NOT_ALLOWED', 'Origin is not on the project allowlist'),
  usersCollectionReserved: () =>
    new AppError(403, 'USERS_COLLECTION_RESERVED', 'The users collection is reserved; use /api/userAuth/*'),
  secretKeyRequired: () => new AppError(403, 'SECRET_KEY_REQUIRED', 'This operation requires a secret key'),
  quotaExceeded: (message = 'Quota exceeded') => new AppError(403, 'QUOTA_EXCEEDED', message),
  notFound: (code = 'NOT_FOUND', message = 'Not found') => new AppError(404, code, message),
  routeNotFound: () => new AppError(404, 'ROUTE_NOT_FOUND', 'Route not found'),
  payloadTooLarge: (message = 'Payload too large') => new AppError(413, 'PAYLOAD_TOO_LARGE', message),
  unsupportedMediaType: (message = 'Unsupported media type') =>
    new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', message),
  rateLimited: (retryAfterSeconds: number, message = 'Too many requests') =>
    new AppError(429, 'RATE_LIMITED', message, undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    }),
  badGateway: (message = 'Upstream service error') => new AppError(502, 'BAD_GATEWAY', message),
  serviceUnavailable: (message = 'Service unavailable') => new AppError(503, 'SERVICE_UNAVAILABLE', message),
  gatewayTimeout: (message = 'Upstream service timed out') => new AppError(504, 'GATEWAY_TIMEOUT', message),
};

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** The contract's error body for every status >= 400. */
export interface ErrorBody {
  success: false;
  error: string;
  message: string;
  code: string;
  requestId: string;
  details?: ErrorDetail[];
}

export function errorBody(
  code: string,
  message: string,
  requestId: string,
  details?: ErrorDetail[],
): ErrorBody {
  const body: ErrorBody = { success: false, error: message, message, code, requestId };
  if (details && details.length > 0) body.details = details;
  return body;
}
