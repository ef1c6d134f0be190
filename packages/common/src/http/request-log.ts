import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';

/**
 * One line per answered request: 5xx at error, 4xx at info, the rest at debug, with the request
 * id, method, path (never the query string or a header: keys and tokens stay out of logs), status
 * and time. Nothing is built for a line whose level is off, so the default level costs a timer
 * and a `finish` listener per request.
 */
export function requestLogMiddleware(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once('finish', () =>
      logAnswered(logger, req.id, req.method, req.originalUrl, res.statusCode, started),
    );
    next();
  };
}

/** The line for one answered request (see requestLogMiddleware); `url` may carry a query string. */
export function logAnswered(
  logger: Logger,
  id: string,
  method: string,
  url: string,
  status: number,
  started: number,
): void {
  const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
  if (!logger.isLevelEnabled(level)) return;
  const q = url.indexOf('?');
  logger[level](
    {
      req: { id, method, url: q < 0 ? url : url.slice(0, q) },
      res: { statusCode: status },
      responseTime: Math.round(performance.now() - started),
    },
    'request completed',
  );
}
