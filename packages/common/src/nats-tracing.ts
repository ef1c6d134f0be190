import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import {
  headers as natsHeaders,
  type Msg,
  type NatsConnection,
  type Payload,
  type RequestOptions,
  type SubscriptionOptions,
} from '@nats-io/nats-core';
import { natsHeaderGetter, natsHeaderSetter } from './events/tracing';
import { baasTracer, tracingEnabled } from './telemetry';

/**
 * Spans for core NATS (no JetStream): fire-and-forget publishes with their subscribers (cache
 * invalidations) and request/reply (janitor commands). As for the event bus (events/tracing.ts),
 * the producer's context travels in the message headers (W3C traceparent) and the consumer's span
 * is its child; attributes follow the current messaging semantic conventions. With tracing off
 * each helper is the plain call: no span, no headers.
 */

const SYSTEM = 'nats';

const bodySize = (payload?: Payload): number =>
  typeof payload === 'string' ? Buffer.byteLength(payload) : (payload?.length ?? 0);

/** Runs `fn` in `span`'s context and ends the span when `fn` returns or, for a promise, settles. */
function runInSpan<T>(span: Span, ctx: Context, fn: () => T): T {
  const fail = (e: unknown): never => {
    span.recordException(e as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
    span.end();
    throw e;
  };
  let out: T;
  try {
    out = context.with(ctx, fn);
  } catch (e) {
    return fail(e);
  }
  if (out instanceof Promise)
    return out.then((v: unknown) => {
      span.end();
      return v;
    }, fail) as T;
  span.end();
  return out;
}

function producer(
  subject: string,
  operation: 'publish' | 'request',
  payload: Payload | undefined,
  h = natsHeaders(),
): { span: Span; ctx: Context; h: typeof h } {
  const parent = context.active();
  const span = baasTracer().startSpan(
    `send ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': SYSTEM,
        'messaging.destination.name': subject,
        'messaging.operation.type': 'send',
        'messaging.operation.name': operation,
        'messaging.message.body.size': bodySize(payload),
      },
    },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  propagation.inject(ctx, h, natsHeaderSetter);
  return { span, ctx, h };
}

/** `nc.publish` in a PRODUCER span (`send <subject>`), child of the active span. */
export function publishTraced(nc: NatsConnection, subject: string, payload?: Payload): void {
  if (!tracingEnabled()) return nc.publish(subject, payload);
  const { span, ctx, h } = producer(subject, 'publish', payload);
  runInSpan(span, ctx, () => nc.publish(subject, payload, { headers: h }));
}

/**
 * `nc.request` in a PRODUCER span (`send <subject>`, `messaging.operation.name=request`) that
 * lasts until the reply arrives; a timeout or "no responders" marks it failed.
 */
export function requestTraced(
  nc: NatsConnection,
  subject: string,
  payload: Payload | undefined,
  opts: RequestOptions,
): Promise<Msg> {
  if (!tracingEnabled()) return nc.request(subject, payload, opts);
  const { span, ctx, h } = producer(subject, 'request', payload, opts.headers);
  return runInSpan(span, ctx, () => nc.request(subject, payload, { ...opts, headers: h }));
}

/**
 * Runs a subscriber's handling of `msg` (sync or async) in a CONSUMER span (`process <subject>`)
 * whose parent is the producer span carried in the message's headers: what the handler does
 * (queries, events, replies, log lines) is in the producer's trace.
 */
export function processTraced<T>(msg: Msg, meta: { group?: string }, handle: () => T): T {
  if (!tracingEnabled()) return handle();
  const parent = propagation.extract(ROOT_CONTEXT, msg.headers, natsHeaderGetter);
  const span = baasTracer().startSpan(
    `process ${msg.subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': SYSTEM,
        'messaging.destination.name': msg.subject,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.message.body.size': msg.data.length,
        ...(meta.group ? { 'messaging.consumer.group.name': meta.group } : {}),
      },
    },
    parent,
  );
  return runInSpan(span, trace.setSpan(parent, span), handle);
}

/** Marks the active span failed (a handler that answers an error rather than throwing it). */
export function failActiveSpan(message: string, err?: unknown): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  if (err) span.recordException(err as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * `nc` whose callback subscriptions run each message in a CONSUMER span (processTraced); every
 * other member is `nc`'s own. `nc` itself when tracing is off.
 */
export function withConsumerSpans(nc: NatsConnection): NatsConnection {
  if (!tracingEnabled()) return nc;
  const subscribe: NatsConnection['subscribe'] = (subject: string, opts?: SubscriptionOptions) => {
    const cb = opts?.callback;
    if (!cb) return nc.subscribe(subject, opts);
    return nc.subscribe(subject, {
      ...opts,
      callback: (err, msg) =>
        err || !msg ? cb(err, msg) : processTraced(msg, { group: opts.queue }, () => cb(err, msg)),
    });
  };
  return new Proxy(nc, {
    get(target, prop) {
      if (prop === 'subscribe') return subscribe;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
