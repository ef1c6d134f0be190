import type { Msg, MsgCallback, MsgHdrs, NatsConnection, Payload } from '@nats-io/nats-core';
import { SpanKind, trace } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { baasTracer, startTelemetry, tracingEnabled } from './telemetry';
import { processTraced, publishTraced, requestTraced, withConsumerSpans } from './nats-tracing';

/** Core NATS in memory: publish reaches callback subscribers, request the first one's respond. */
function fakeNats(): NatsConnection & { sent: Array<{ subject: string; headers?: MsgHdrs }> } {
  const subs: Array<{ subject: string; cb: MsgCallback<Msg> }> = [];
  const sent: Array<{ subject: string; headers?: MsgHdrs }> = [];
  const msg = (
    subject: string,
    payload: Payload | undefined,
    headers?: MsgHdrs,
    respond?: (d: string) => void,
  ) =>
    ({
      subject,
      data: typeof payload === 'string' ? Buffer.from(payload) : (payload ?? new Uint8Array()),
      headers,
      json: () => JSON.parse(String(payload)) as unknown,
      respond: (d: string) => (respond?.(d), true),
    }) as unknown as Msg;
  const nc = {
    sent,
    publish(subject: string, payload?: Payload, opts?: { headers?: MsgHdrs }) {
      sent.push({ subject, headers: opts?.headers });
      for (const s of subs) if (s.subject === subject) void s.cb(null, msg(subject, payload, opts?.headers));
    },
    subscribe(subject: string, opts: { callback: MsgCallback<Msg> }) {
      subs.push({ subject, cb: opts.callback });
      return { unsubscribe: () => undefined };
    },
    request(subject: string, payload?: Payload, opts?: { headers?: MsgHdrs }) {
      sent.push({ subject, headers: opts?.headers });
      const s = subs.find((x) => x.subject === subject);
      if (!s) return Promise.reject(new Error('no responders'));
      return new Promise<Msg>((resolve) =>
        s.cb(
          null,
          msg(subject, payload, opts?.headers, (d) => resolve(msg('_INBOX.x', d))),
        ),
      );
    },
    getServer: () => 'fake:4222',
  };
  return nc as unknown as NatsConnection & { sent: typeof sent };
}

describe('core NATS spans, tracing off', () => {
  it('publishes and requests without headers, and leaves the connection as it is', async () => {
    expect(tracingEnabled()).toBe(false);
    const nc = fakeNats();
    expect(withConsumerSpans(nc)).toBe(nc);
    const got: string[] = [];
    nc.subscribe('a', { callback: (_e, m) => void got.push(m.subject) });
    publishTraced(nc, 'a', '{}');
    nc.subscribe('r', { callback: (_e, m) => void m.respond('"pong"') });
    expect((await requestTraced(nc, 'r', '{}', { timeout: 100 })).json()).toBe('pong');
    expect(got).toEqual(['a']);
    expect(nc.sent.map((s) => s.headers)).toEqual([undefined, undefined]);
  });
});

describe('core NATS spans, tracing on', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  /** The spans ended so far (export waits for the resource's detectors). */
  const finished = async () => (await processor.forceFlush(), exporter.getFinishedSpans());
  let telemetry: { shutdown: () => Promise<void> };
  beforeAll(() => {
    telemetry = startTelemetry('test', { spanProcessors: [processor] });
  });
  afterAll(() => telemetry.shutdown());
  beforeEach(() => exporter.reset());

  it('joins a publish under the active span and its subscriber’s handling in one trace', async () => {
    const nc = fakeNats();
    let handledIn: string | undefined;
    withConsumerSpans(nc).subscribe('baas.cache.invalidate', {
      callback: () => void (handledIn = trace.getActiveSpan()?.spanContext().spanId),
    });
    baasTracer().startActiveSpan('POST /api/admin/projects/:id/keys/rotate', (request) => {
      publishTraced(nc, 'baas.cache.invalidate', JSON.stringify({ projectId: 'p' }));
      request.end();
    });
    const spans = await finished();
    const producer = spans.find((s) => s.kind === SpanKind.PRODUCER)!;
    const consumer = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    const request = spans.find((s) => s.name.startsWith('POST'))!;
    expect(producer).toMatchObject({
      name: 'send baas.cache.invalidate',
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': 'baas.cache.invalidate',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.message.body.size': 17,
      },
    });
    expect(consumer).toMatchObject({
      name: 'process baas.cache.invalidate',
      attributes: {
        'messaging.operation.type': 'process',
        'messaging.destination.name': 'baas.cache.invalidate',
      },
    });
    expect(consumer.attributes).not.toHaveProperty('messaging.consumer.group.name');
    const traceId = request.spanContext().traceId;
    expect([producer, consumer].map((s) => s.spanContext().traceId)).toEqual([traceId, traceId]);
    expect(producer.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(handledIn).toBe(consumer.spanContext().spanId);
    expect(nc.sent[0]!.headers?.get('traceparent')).toBe(`00-${traceId}-${producer.spanContext().spanId}-01`);
  });

  it('joins a request and its responder (queue group) in one trace, the request span lasting until the reply', async () => {
    const nc = fakeNats();
    nc.subscribe('baas.janitor.data.purge-trash', {
      callback: (_e, m) =>
        void processTraced(m, { group: 'janitor-workers' }, async () => {
          await new Promise((r) => setTimeout(r, 20));
          m.respond('{"ok":true}');
        }),
    });
    await requestTraced(nc, 'baas.janitor.data.purge-trash', '{}', { timeout: 100 });
    const spans = await finished();
    const producer = spans.find((s) => s.kind === SpanKind.PRODUCER);
    const consumer = spans.find((s) => s.kind === SpanKind.CONSUMER);
    expect(producer).toMatchObject({
      name: 'send baas.janitor.data.purge-trash',
      attributes: { 'messaging.operation.name': 'request' },
    });
    expect(producer!.parentSpanContext).toBeUndefined();
    expect(consumer).toMatchObject({
      name: 'process baas.janitor.data.purge-trash',
      attributes: { 'messaging.consumer.group.name': 'janitor-workers' },
    });
    expect(consumer!.spanContext().traceId).toBe(producer!.spanContext().traceId);
    expect(consumer!.parentSpanContext?.spanId).toBe(producer!.spanContext().spanId);
    // The responder took 20 ms before replying: the request span covers it (with room for a
    // timer that fires up to a millisecond early by the high-resolution clock, seen in CI).
    expect(hrTimeToMilliseconds(producer!.endTime)).toBeGreaterThanOrEqual(
      hrTimeToMilliseconds(consumer!.startTime) + 15,
    );
  });

  it('marks a failed request and a throwing handler as errors', async () => {
    const nc = fakeNats();
    await expect(requestTraced(nc, 'nobody', '{}', { timeout: 100 })).rejects.toThrow('no responders');
    expect(() =>
      processTraced({ subject: 's', data: new Uint8Array() } as unknown as Msg, {}, () => {
        throw new Error('bad message');
      }),
    ).toThrow('bad message');
    expect((await finished()).map((s) => s.status)).toEqual([
      { code: 2, message: 'no responders' },
      { code: 2, message: 'bad message' },
    ]);
  });
});
