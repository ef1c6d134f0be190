import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, createLogger, JetStreamBus, type EventEnvelope } from '@baas/common';
import { client, createProject } from '../support/e2e';
import { stackEnv, stackNatsAuth } from '../support/stack-env';
import { until } from '../support/until';
import { freePort, ServiceProcess } from '../support/service-process';

/**
 * Issue 7: two janitor processes with a short grace period sweep the real services; a trashed
 * document can be restored before the grace period and is purged after it, exactly once.
 */
const env = stackEnv();
// Longer than starting two janitor processes takes, so "before the grace period" is still true.
const GRACE_SECONDS = 12;
let nc: NatsConnection;
let bus: JetStreamBus;
const janitors: ServiceProcess[] = [];

beforeAll(async () => {
  nc = await connectNats(
    env.NATS_URL ?? 'nats://127.0.0.1:4222',
    'janitor-e2e',
    createLogger('t', 'silent'),
    stackNatsAuth(env),
  );
  bus = await JetStreamBus.create(nc, createLogger('t', 'silent'));
});

afterAll(async () => {
  await Promise.all(janitors.map((j) => j.stop()));
  await nc?.drain();
});

describe('janitor', () => {
  it('purges a trashed document after the grace period, once, while one restored in time survives', async () => {
    const call = client();
    // The owner decides how young a purge may reach (issue 12 item 10): the stack's data service
    // keeps its 30 days whatever the janitors ask, so a replica with the short grace answers too
    // (the queue group gives each command to one of them).
    const data = new ServiceProcess('data', await freePort(), {
      TRASH_GRACE_PERIOD_SECONDS: String(GRACE_SECONDS),
    });
    await data.start();
    janitors.push(data);
    const p = await createProject();
    const reg = await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, { admin: true, body: {} });
    expect([200, 201]).toContain(reg.status);
    const a = await call('POST', '/api/data/notes', { key: p.secretKey, body: { text: 'restore me' } });
    const b = await call('POST', '/api/data/notes', { key: p.secretKey, body: { text: 'purge me' } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);

    const purged: EventEnvelope[] = [];
    const handle = await bus.consume({
      durable: `janitor-e2e-${randomBytes(4).toString('hex')}`,
      inactiveThresholdMs: 60_000,
      deliverNew: true,
      types: ['document.purged'],
      handler: async (e) => void (e.projectId === p.id && purged.push(e)),
    });

    for (const id of [a.body._id, b.body._id])
      expect((await call('DELETE', `/api/data/notes/${id}`, { key: p.secretKey })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const j = new ServiceProcess('janitor', port, {
        TRASH_GRACE_PERIOD_SECONDS: String(GRACE_SECONDS),
        JANITOR_INTERVAL_SECONDS: '1',
        ORPHAN_FILE_GRACE_SECONDS: '86400',
      });
      await j.start();
      janitors.push(j);
    }

    // Before the grace period: still in the trash, and restorable.
    const trashed = await call('GET', `/api/data/notes/${b.body._id}?include_deleted=true`, {
      key: p.secretKey,
    });
    expect(trashed.status).toBe(200);
    expect(trashed.body.isDeleted).toBe(true);
    const restored = await call('POST', `/api/data/notes/${a.body._id}/restore`, { key: p.secretKey });
    expect(restored.status).toBe(200);

    // After it: gone for good, with one document.purged event although two janitors run.
    await until(
      async () =>
        (await call('GET', `/api/data/notes/${b.body._id}?include_deleted=true`, { key: p.secretKey }))
          .status === 404,
      40_000,
      'the purge',
      // through the gateway: one request a second keeps this client far below the per-IP limit
      // (100 per 15 min) however long the purge takes
      1000,
    );
    await new Promise((r) => setTimeout(r, 2500));
    expect(purged.map((e) => (e.data as { documentId: string }).documentId)).toEqual([b.body._id]);
    const survivor = await call('GET', `/api/data/notes/${a.body._id}`, { key: p.secretKey });
    expect(survivor.status).toBe(200);
    expect(survivor.body.isDeleted).toBe(false);

    // The janitors' metrics show the work.
    const metrics = await Promise.all(
      janitors
        .filter((j) => j.service === 'janitor')
        .map(async (j) => (await fetch(`${j.url}/metrics`)).text()),
    );
    const total = metrics
      .flatMap((m) => m.split('\n'))
      .filter((l) => l.startsWith('baas_janitor_items_processed_total{') && l.includes('task="purge-trash"'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    expect(total).toBeGreaterThanOrEqual(1);
    await handle.stop();
  }, 60_000);
});
