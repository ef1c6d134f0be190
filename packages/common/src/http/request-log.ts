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
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      const url = req.originalUrl;
      const q = url.indexOf('?');
      logger[level](
        {
          req: { id: req.id, method: req.method, url: q < 0 ? url : url.slice(0, q) },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
    next();
  };
}
