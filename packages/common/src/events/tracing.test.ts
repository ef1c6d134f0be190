import { Writable } from 'node:stream';
import pino from 'pino';
import { headers } from '@nats-io/nats-core';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { logContext } from '../logger';
import { runWithContext } from '../request-context';
import { startTelemetry, tracingEnabled } from '../telemetry';
import { tracedConsume, tracedPublish } from './tracing';

const traceId = '0af7651916cd43dd8448eb211c80319c';
const traceparent = `00-${traceId}-b7ad6b7169203331-01`;
const event = { id: 'evt-1', traceparent };
const subject = 'baas.events.user.created';

function lines(): { logger: pino.Logger; out: Array<Record<string, unknown>> } {
  const out: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ mixin: logContext }, stream), out };
}

describe('NATS spans and log context, tracing off', () => {
  it('passes the event’s traceparent in the headers and runs the handler as is', async () => {
    expect(tracingEnabled()).toBe(false);
    const h = headers();
    await tracedPublish(subject, event, h, async () => undefined);
    expect(h.get('traceparent')).toBe(traceparent);
    expect(
      await tracedConsume({ subject, headers: h }, { messageId: 'e', consumer: 'c' }, async () => 7),
    ).toBe(7);
  });

  it('gives log lines the request id and project of the request, and no trace ids', () => {
    const { logger, out } = lines();
    runWithContext({ requestId: 'r-1', projectId: 'p-1', traceparent }, () => logger.info('inside'));
    logger.info('outside');
    expect(out[0]).toMatchObject({ requestId: 'r-1', projectId: 'p-1', msg: 'inside' });
    expect(out[0]).not.toHaveProperty('trace_id');
    expect(out[1]).not.toHaveProperty('requestId');
  });
});

describe('NATS spans and log context, tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: { shutdown: () => Promise<void> };
  beforeAll(() => {
    telemetry = startTelemetry('test', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });
  afterAll(() => telemetry.shutdown());

  it('joins producer and consumer in the trace the event was created in, via the headers', async () => {
    const h = headers();
    await tracedPublish(subject, event, h, async () => undefined);
    const [producer] = exporter.getFinishedSpans();
    expect(producer).toMatchObject({
      name: `send ${subject}`,
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': 'send',
        'messaging.message.id': 'evt-1',
      },
    });
    expect(producer!.spanContext().traceId).toBe(traceId);
    expect(producer!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(h.get('traceparent')).toBe(`00-${traceId}-${producer!.spanContext().spanId}-01`);

    const { logger, out } = lines();
    await runWithContext({ requestId: 'r-2', projectId: 'p-2' }, () =>
      tracedConsume(
        { subject, headers: h },
        { messageId: 'evt-1', consumer: 'mail-user-created' },
        async () => logger.info('handling'),
      ),
    );
    const consumer = exporter.getFinishedSpans()[1]!;
    expect(consumer).toMatchObject({
      name: `process ${subject}`,
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.operation.type': 'process',
        'messaging.consumer.group.name': 'mail-user-created',
      },
    });
    expect(consumer.spanContext().traceId).toBe(traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer!.spanContext().spanId);
    expect(out[0]).toMatchObject({
      requestId: 'r-2',
      projectId: 'p-2',
      trace_id: traceId,
      span_id: consumer.spanContext().spanId,
    });
  });

  it('marks a failed handler’s span as an error and rethrows', async () => {
    exporter.reset();
    await expect(
      tracedConsume({ subject }, { messageId: 'e', consumer: 'c' }, async () => {
        throw new Error('smtp down');
      }),
    ).rejects.toThrow('smtp down');
    expect(exporter.getFinishedSpans()[0]?.status).toMatchObject({ code: 2, message: 'smtp down' });
  });
});
