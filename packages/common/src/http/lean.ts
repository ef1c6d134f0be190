import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { runWithContext, saneTraceparent } from '../request-context';
import { errorAnswer } from './error-handler';
import { REQUEST_ID_HEADER, pickRequestId } from './request-id';
import { logAnswered } from './request-log';

/** A JSON answer of a lean route. */
export interface LeanAnswer {
  status: number;
  body: unknown;
}

/** One request on a lean route, with the id it is answered and logged under. */
export interface LeanExchange {
  req: IncomingMessage;
  id: string;
}

function oneHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * Serves one request on a service's hot route without express: the same request id, ambient
 * context, request log line, duration metric (labelled `route`, the template express would
 * report) and error bodies as createServiceApp's middleware and error handler give every other
 * route. Express with its middleware costs ~100-150 us of CPU per request on the machines we
 * measure on, as much as the rest of a document read; a service sends only the routes it has
 * measured this way and leaves everything else (and any request it is unsure of) to its app.
 */
export function serveLean(
  opts: { logger: Logger; metrics: Metrics },
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  handle: (ex: LeanExchange) => Promise<LeanAnswer>,
): void {
  const started = performance.now();
  const end = opts.metrics.httpDuration.startTimer();
  opts.metrics.inFlight.inc();
  res.once('close', () => opts.metrics.inFlight.dec());
  const url = req.url ?? '/';
  const method = req.method ?? '';
  const id = pickRequestId(oneHeader(req.headers[REQUEST_ID_HEADER]));
  res.setHeader(REQUEST_ID_HEADER, id);
  res.once('finish', () => {
    end({ method, route, status_code: String(res.statusCode) });
    logAnswered(opts.logger, id, method, url, res.statusCode, started);
  });
  const ex: LeanExchange = { req, id };
  runWithContext({ requestId: id, traceparent: saneTraceparent(oneHeader(req.headers.traceparent)) }, () => {
    handle(ex).then(
      (answer) => sendJson(res, answer.status, answer.body),
      (err: unknown) => {
        if (res.headersSent) {
          opts.logger.error({ err, requestId: id }, 'error after headers were sent');
          res.destroy();
          return;
        }
        const answer = errorAnswer(err, id, opts.logger);
        sendJson(res, answer.status, answer.body, answer.headers);
      },
    );
  });
}
