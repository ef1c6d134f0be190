import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, createLogger, EVENTS_STREAM, JetStreamBus, type EventEnvelope } from '@baas/common';
import { client, createProject } from '../support/e2e';
import { stackEnv, stackNatsAuth } from '../support/stack-env';
import { until } from '../support/until';

/** Issue 7: events are typed, versioned envelopes that carry the trace of their cause. */
const env = stackEnv();
let nc: NatsConnection;
let bus: JetStreamBus;

beforeAll(async () => {
  nc = await connectNats(
    env.NATS_URL ?? 'nats://127.0.0.1:4222',
    'events-e2e',
    createLogger('t', 'silent'),
    stackNatsAuth(env),
  );
  bus = await JetStreamBus.create(nc, createLogger('t', 'silent'));
});
afterAll(async () => nc?.drain());

describe('domain events', () => {
  it('carry the envelope, the request id and the W3C trace context of the request that caused them', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, { admin: true, body: {} });
    const seen: EventEnvelope[] = [];
    const handle = await bus.consume({
      durable: `events-e2e-${randomBytes(4).toString('hex')}`,
      inactiveThresholdMs: 60_000,
      deliverNew: true,
      types: ['document.created'],
      handler: async (e) => void (e.projectId === p.id && seen.push(e)),
    });
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    const r = await call('POST', '/api/data/notes', {
      key: p.secretKey,
      body: { text: 'traced' },
      headers: { traceparent, 'x-request-id': `req-${traceId.slice(0, 8)}` },
    });
    expect(r.status).toBe(201);
    await until(() => seen.length === 1, 10_000);
    const e = seen[0]!;
    expect(e).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'document.created',
      version: 1,
      projectId: p.id,
      requestId: `req-${traceId.slice(0, 8)}`,
      data: { collection: 'notes', documentId: r.body._id },
    });
    expect(e.traceparent?.split('-')[1]).toBe(traceId);
    expect(new Date(e.occurredAt).getTime()).toBeGreaterThan(Date.now() - 60_000);

    // The message itself: event id as the JetStream message id, trace context in its headers.
    const jsm = await jetstreamManager(nc);
    const msg = await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: 'baas.events.document.created' });
    expect(msg?.json<EventEnvelope>().id).toBe(e.id);
    expect(msg?.header?.get('Nats-Msg-Id')).toBe(e.id);
    expect(msg?.header?.get('traceparent')?.split('-')[1]).toBe(traceId);
    await handle.stop();
  });
});
