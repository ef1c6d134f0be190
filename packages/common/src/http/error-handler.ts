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
  // an operation in flight while the client was closed and connected again (MongoMonitorWatchdog)
  'MongoExpiredSessionError',
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

/**
 * PostgreSQL SQLSTATEs that mean "busy or unreachable right now": connection exceptions (08),
 * shutdown and startup (57P0x), too many connections (53300), out of resources (53xxx),
 * serialization failures and deadlocks that survived their retries (40001, 40P01), lock timeouts
 * (55P03).
 */
const PG_UNAVAILABLE = /^(08...|57P0[1-4]|53...|40001|40P01|55P03)$/;
/**
 * node-postgres' own errors for a pool that cannot get a connection, one that broke, or a
 * statement the server never answered (query_timeout: the server is unreachable).
 */
const PG_UNAVAILABLE_MESSAGES =
  /^(timeout exceeded when trying to connect|Connection terminated|Query read timeout)/;
/**
 * A body whose Content-Encoding (gzip, deflate, br) does not decode: zlib's error (`Z_DATA_ERROR`,
 * or Brotli's `ERR__ERROR_...`), which body-parser passes on with status 400 and no type.
 */
const UNDECODABLE_BODY = /^(Z_|ERR__ERROR_|ERR_BROTLI)/;
/** A statement cancelled by its `statement_timeout`: the query is over its time budget. */
const PG_QUERY_CANCELED = '57014';
/**
 * Text a client sent that PostgreSQL cannot hold: a NUL character in text (22021) or in jsonb
 * (22P05, `\u0000`), an unpaired surrogate in jsonb (22P02 "invalid input syntax for type json").
 * In a document, a filter or a pipeline value they are bad input, never a 500 (MongoDB keeps them).
 */
const PG_UNSTORABLE_TEXT = new Set(['22021', '22P05']);
const PG_INVALID_JSON = '22P02';
const PG_INVALID_JSON_MESSAGE = /type json/;

/** The 400 for text PostgreSQL refused to hold (see PG_UNSTORABLE_TEXT), else undefined. */
export function unstorableTextError(err: unknown): AppError | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  const json =
    code === PG_INVALID_JSON && typeof message === 'string' && PG_INVALID_JSON_MESSAGE.test(message);
  return PG_UNSTORABLE_TEXT.has(code) || json
    ? errors.validation('Text may not contain NUL characters or unpaired surrogates')
    : undefined;
}

function unavailable(): AppError {
  const e = errors.serviceUnavailable('A dependency is unavailable, please retry');
  return new AppError(e.status, e.code, e.message, undefined, { 'Retry-After': '1' });
}

export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const { name, code, message } = (err ?? {}) as { name?: string; code?: unknown; message?: unknown };
  if ((name && UNAVAILABLE_ERRORS.has(name)) || (typeof code === 'string' && UNAVAILABLE_CODES.has(code)))
    return unavailable();
  if (typeof code === 'string' && PG_UNAVAILABLE.test(code)) return unavailable();
  if (code === PG_QUERY_CANCELED)
    return new AppError(504, 'QUERY_TIMEOUT', 'The query took longer than its time budget');
  if (err instanceof Error && typeof message === 'string' && PG_UNAVAILABLE_MESSAGES.test(message))
    return unavailable();
  const unstorable = unstorableTextError(err);
  if (unstorable) return unstorable;
  // express could not percent-decode a path parameter (`%ff`, `%E0%A4%A`): its URIError, status 400
  if (err instanceof URIError && (err as { status?: unknown }).status === 400)
    return errors.badRequest('MALFORMED_URL', 'The URL path is not valid percent-encoded UTF-8');
  const bp = err as BodyParserError | undefined;
  if (typeof code === 'string' && UNDECODABLE_BODY.test(code) && (err as { status?: unknown }).status === 400)
    return new AppError(400, 'MALFORMED_JSON', 'The request body could not be decoded (Content-Encoding)');
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

/** The answer to an error: its status, extra headers and contract body (unknown errors logged, opaque). */
export function errorAnswer(
  err: unknown,
  requestId: string,
  logger: Logger,
): { status: number; headers?: Record<string, string>; body: ReturnType<typeof errorBody> } {
  const known = toAppError(err);
  if (known) {
    const answer = {
      status: known.status,
      body: errorBody(known.code, known.message, requestId, known.details),
    };
    return known.headers ? { ...answer, headers: known.headers } : answer;
  }
  logger.error({ err, requestId }, 'unhandled error');
  return { status: 500, body: errorBody('INTERNAL', 'Internal server error', requestId) };
}

export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const requestId = req.id ?? 'unknown';
    if (res.headersSent) {
      logger.error({ err, requestId }, 'error after headers were sent');
      res.destroy();
      return;
    }
    const answer = errorAnswer(err, requestId, logger);
    if (answer.headers) for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
    res.status(answer.status).json(answer.body);
  };
}

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction): void {
  next(errors.routeNotFound());
}
