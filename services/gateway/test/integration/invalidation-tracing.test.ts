import { startTelemetry } from '@baas/common/telemetry';
import { ObjectId } from 'mongodb';
import type { NatsConnection } from '@nats-io/nats-core';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { baasTracer, connectNats, createLogger, INVALIDATION_SUBJECT, trustedProjectId } from '@baas/common';
import { NatsCacheInvalidator } from '../../../auth/src/adapters/nats-cache-invalidator';
import { infra, requireInfra } from '../../../../test/support/infra';
import { CachedProjectDirectory } from '../../src/domain/cached-project-directory';
import { subscribeInvalidations } from '../../src/adapters/nats-invalidation';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const telemetry = startTelemetry('gateway-test', { spanProcessors: [processor] });
let nc: NatsConnection;

/** Records the span each invalidation is handled in. */
class RecordingDirectory extends CachedProjectDirectory {
  readonly handled = new Map<string, string | undefined>();
  override invalidateProject(projectId: string): void {
    this.handled.set(projectId, trace.getActiveSpan()?.spanContext().spanId);
    super.invalidateProject(projectId);
  }
}

beforeAll(async () => {
  await requireInfra('nats');
  nc = await connectNats(infra.natsUrl, 'invalidation-tracing-test', createLogger('test', 'silent'));
});

afterAll(async () => {
  await nc?.drain();
  await telemetry.shutdown();
});

describe('cache invalidation tracing (real NATS, in-memory exporter)', () => {
  it('puts auth’s invalidation publish and the gateway’s handling of it in the request’s trace', async () => {
    const directory = new RecordingDirectory({ byKeyHash: async () => null, byId: async () => null }, 60_000);
    const sub = subscribeInvalidations(nc, directory);
    await nc.flush();
    const projectId = trustedProjectId(new ObjectId().toHexString());
    const request = baasTracer().startActiveSpan(
      'POST /api/admin/projects/:projectId/keys/rotate',
      (span) => {
        new NatsCacheInvalidator(nc).projectChanged(projectId);
        span.end();
        return span.spanContext();
      },
    );
    const start = Date.now();
    while (!directory.handled.has(projectId) && Date.now() - start < 5000)
      await new Promise((r) => setTimeout(r, 20));
    await processor.forceFlush();
    const inTrace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === request.traceId);
    const producer = inTrace.find((s) => s.kind === SpanKind.PRODUCER);
    const consumer = inTrace.find((s) => s.kind === SpanKind.CONSUMER);
    expect(producer).toMatchObject({
      name: `send ${INVALIDATION_SUBJECT}`,
      parentSpanContext: { spanId: request.spanId },
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': INVALIDATION_SUBJECT,
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
      },
    });
    expect(consumer).toMatchObject({
      name: `process ${INVALIDATION_SUBJECT}`,
      parentSpanContext: { spanId: producer!.spanContext().spanId },
      attributes: { 'messaging.operation.type': 'process' },
    });
    expect(directory.handled.get(projectId)).toBe(consumer!.spanContext().spanId);
    sub.unsubscribe();
  });
});
