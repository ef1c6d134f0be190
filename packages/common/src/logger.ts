import pino, { type Logger } from 'pino';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { currentContext } from './request-context';
import { tracingEnabled } from './telemetry';

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-refresh-token"]',
  'req.headers["x-gateway-assertion"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.secretKey',
  '*.publishableKey',
  '*.otp',
];

const NOTHING = Object.freeze({});

/**
 * What every line gets from where it is written: the request id and project of the request (or
 * event) being handled, from the ambient request context, and the active span's ids when tracing
 * is on. Runs only for lines whose level is enabled; outside a request it adds nothing.
 */
export function logContext(): object {
  const ctx = currentContext();
  const span = tracingEnabled() ? trace.getActiveSpan()?.spanContext() : undefined;
  if (!ctx && !span) return NOTHING;
  const out: Record<string, string> = {};
  if (ctx?.requestId) out.requestId = ctx.requestId;
  if (ctx?.projectId) out.projectId = ctx.projectId;
  if (span && isSpanContextValid(span)) {
    out.trace_id = span.traceId;
    out.span_id = span.spanId;
  }
  return out;
}

export function createLogger(service: string, level: string): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    mixin: logContext,
    // The line's own fields win; the shared empty object is never written to.
    mixinMergeStrategy: (line, added) => (added === NOTHING ? line : Object.assign(added, line)),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
