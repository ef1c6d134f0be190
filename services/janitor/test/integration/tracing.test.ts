import { startTelemetry } from '@baas/common/telemetry';
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { answerJanitor, connectNats, createLogger, JANITOR_QUEUE } from '@baas/common';
import { infra, requireInfra } from '../../../../test/support/infra';
import { NatsCommandSender } from '../../src/adapters/nats-command-sender';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const telemetry = startTelemetry('janitor-test', { spanProcessors: [processor] });
const logger = createLogger('test', 'silent');
let nc: NatsConnection;

beforeAll(async () => {
  await requireInfra('nats');
  nc = await connectNats(infra.natsUrl, 'janitor-tracing-test', logger);
});

afterAll(async () => {
  await nc?.drain();
  await telemetry.shutdown();
});

async function spansOf(subject: string) {
  await processor.forceFlush();
  const spans = exporter
    .getFinishedSpans()
    .filter((s) => s.attributes['messaging.destination.name'] === subject);
  return {
    request: spans.find((s) => s.kind === SpanKind.PRODUCER)!,
    responder: spans.find((s) => s.kind === SpanKind.CONSUMER)!,
  };
}

describe('janitor command tracing (real NATS, in-memory exporter)', () => {
  it('puts the janitor’s request and the owner’s handling of it in one trace', async () => {
    const subject = `test.janitor.${randomBytes(4).toString('hex')}`;
    let runIn: string | undefined;
    const owner = answerJanitor(nc, subject, logger, async () => {
      runIn = trace.getActiveSpan()?.spanContext().spanId;
      return { ok: true, processed: 3, more: false };
    });
    const reply = await new NatsCommandSender(nc, 2000).send(subject, {
      olderThan: new Date().toISOString(),
      batchSize: 10,
    });
    expect(reply).toEqual({ ok: true, processed: 3, more: false });
    const { request, responder } = await spansOf(subject);
    expect(request).toMatchObject({
      name: `send ${subject}`,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'request',
      },
    });
    expect(responder).toMatchObject({
      name: `process ${subject}`,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.consumer.group.name': JANITOR_QUEUE,
      },
    });
    expect(responder.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(responder.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    // The owner's work (its queries, the events it publishes) happens inside the consumer span.
    expect(runIn).toBe(responder.spanContext().spanId);
    await owner.close();
  });

  it('marks the owner’s span failed when the command fails, and still replies', async () => {
    const subject = `test.janitor.${randomBytes(4).toString('hex')}`;
    const owner = answerJanitor(nc, subject, logger, async () => {
      throw new Error('store down');
    });
    const reply = await new NatsCommandSender(nc, 2000).send(subject, {
      olderThan: new Date().toISOString(),
      batchSize: 10,
    });
    expect(reply).toMatchObject({ ok: false, error: 'store down' });
    const { request, responder } = await spansOf(subject);
    expect(responder.status).toEqual({ code: 2, message: 'store down' });
    expect(responder.spanContext().traceId).toBe(request.spanContext().traceId);
    await owner.close();
  });
});
