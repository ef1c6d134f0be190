import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';
import { AppError, errorBody, errors } from '../errors';

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Maps anything thrown to the contract's error body. Unknown errors are logged and opaque. */
/** Driver errors that mean "the database is unreachable right now", not "the code is wrong". */
const UNAVAILABLE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
]);

/** Socket errors a driver can surface unwrapped when its server goes away mid-command. */
const UNAVAILABLE_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ENOTCONN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const { name, code } = (err ?? {}) as { name?: string; code?: unknown };
  if ((name && UNAVAILABLE_ERRORS.has(name)) || (typeof code === 'string' && UNAVAILABLE_CODES.has(code))) {
    const e = errors.serviceUnavailable('A dependency is unavailable, please retry');
    return new AppError(e.status, e.code, e.message, undefined, { 'Retry-After': '1' });
  }
  const bp = err as BodyParserError | undefined;
  switch (bp?.type ?? '') {
    case 'entity.parse.failed':
      return errors.malformedJson();
    case 'entity.too.large':
      return errors.payloadTooLarge('Request body too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errors.unsupportedMediaType();
    case 'request.aborted':
      return errors.badRequest('REQUEST_ABORTED', 'Request aborted');
    default:
      return undefined;
  }
}

export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const requestId = req.id ?? 'unknown';
    const known = toAppError(err);
    if (res.headersSent) {
      logger.error({ err, requestId }, 'error after headers were sent');
      res.destroy();
      return;
    }
    if (known) {
      if (known.headers) for (const [k, v] of Object.entries(known.headers)) res.setHeader(k, v);
      res.status(known.status).json(errorBody(known.code, known.message, requestId, known.details));
      return;
    }
    logger.error({ err, requestId }, 'unhandled error');
    res.status(500).json(errorBody('INTERNAL', 'Internal server error', requestId));
  };
}

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction): void {
  next(errors.routeNotFound());
}
