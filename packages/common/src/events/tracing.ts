import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/nats-core';
import { baasTracer, endWith, tracingEnabled } from '../telemetry';

/**
 * Producer and consumer spans for NATS (no instrumentation exists for @nats-io v3): the trace
 * context travels in the message headers (W3C traceparent), attributes follow the messaging
 * semantic conventions. With tracing off these only do what the bus did without them: the
 * event's own traceparent goes into the headers, and nothing else is made.
 */

/** W3C trace context into and out of NATS message headers (also used by ../nats-tracing.ts). */
export const natsHeaderSetter: TextMapSetter<MsgHdrs> = {
  set: (h, key, value) => h.set(key, value),
};

export const natsHeaderGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (h, key) => h?.get(key) || undefined,
  keys: (h) => h?.keys() ?? [],
};

const SYSTEM = 'nats';

/**
 * Publishes in a PRODUCER span (`send <subject>`), child of the context the event was created in
 * (its traceparent: the outbox relay publishes long after the request ended), whose context goes
 * into `headers` for the consumer.
 */
export async function tracedPublish<T>(
  subject: string,
  event: { id: string; traceparent?: string },
  headers: MsgHdrs,
  send: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) {
    if (event.traceparent) headers.set('traceparent', event.traceparent);
    return send();
  }
  const parent = event.traceparent
    ? propagation.extract(ROOT_CONTEXT, { traceparent: event.traceparent })
    : context.active();
  const span = baasTracer().startSpan(
    `send ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': SYSTEM,
        'messaging.destination.name': subject,
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.message.id': event.id,
      },
    },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  propagation.inject(ctx, headers, natsHeaderSetter);
  return context.with(ctx, () => endWith(span, send));
}

export interface ConsumedMessage {
  subject: string;
  headers?: MsgHdrs;
}

/**
 * Runs a consumer's handler in a CONSUMER span (`process <subject>`) whose parent is the producer
 * span carried in the message headers; everything the handler does (queries, the events it
 * publishes, its log lines) is in that trace.
 */
export async function tracedConsume<T>(
  m: ConsumedMessage,
  meta: { messageId: string; consumer: string },
  handle: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return handle();
  const parent = propagation.extract(ROOT_CONTEXT, m.headers, natsHeaderGetter);
  const span = baasTracer().startSpan(
    `process ${m.subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': SYSTEM,
        'messaging.destination.name': m.subject,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.message.id': meta.messageId,
        'messaging.consumer.group.name': meta.consumer,
      },
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => endWith(span, handle));
}
