import { randomUUID } from 'node:crypto';
import type { EventEnvelope, JanitorReply, ProjectId } from '@baas/common';
import { startHarness, register, type Harness } from './harness';
import { answerJanitor } from '@baas/common';
import { purgeTrash } from '../../src/domain/documents/purge-trash';
import { dropProjectData } from '../../src/domain/collections/manage-collections';
import { until } from '../../../../test/support/until';

let h: Harness;
const events: EventEnvelope[] = [];
beforeAll(async () => {
  h = await startHarness('data_life');
  const sub = h.nc.subscribe('baas.events.document.>');
  void (async () => {
    for await (const m of sub) events.push(m.json<EventEnvelope>());
  })();
});
afterAll(async () => {
  await h?.close();
});

async function eventually<T>(f: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const eventFor = (p: ProjectId, type: string, id: string) => () =>
  events.find(
    (e) => e.projectId === p && e.type === type && (e.data as { documentId?: string }).documentId === id,
  );

describe('document events, trash purge, quota and project deletion', () => {
  it('publishes created, updated, trashed and restored events with project, collection and id, and clears the outbox', async () => {
    const p = h.newProject();
    await register(h, p, 'ev');
    const c = await h.call('POST', '/api/data/ev', { projectId: p, body: { a: 1 } });
    const id = c.body._id as string;
    const created = await eventually(eventFor(p, 'document.created', id));
    expect(created.data).toEqual({ collection: 'ev', documentId: id });
    await h.call('PATCH', `/api/data/ev/${id}`, { projectId: p, body: { a: 2 } });
    await eventually(eventFor(p, 'document.updated', id));
    await h.call('DELETE', `/api/data/ev/${id}`, { projectId: p });
    await eventually(eventFor(p, 'document.trashed', id));
    await h.call('POST', `/api/data/ev/${id}/restore`, { projectId: p });
    await eventually(eventFor(p, 'document.restored', id));
    await h.wiring.relay.flush();
    expect(await h.probe.pendingEvents(p, 'ev', id)).toBe(0);
  });

  it('purges documents trashed before olderThan in bounded batches via the janitor command, with events and quota released', async () => {
    const p = h.newProject(5);
    await register(h, p, 'tr');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await h.call('POST', '/api/data/tr', { projectId: p, body: { i } })).body._id);
    expect((await h.call('POST', '/api/data/tr', { projectId: p, body: {} })).status).toBe(403);
    for (const id of ids.slice(0, 3)) await h.call('DELETE', `/api/data/tr/${id}`, { projectId: p });
    const subject = `test.purge.${randomUUID()}`;
    const responder = answerJanitor(
      h.nc,
      subject,
      (await import('@baas/common')).createLogger('t', 'silent'),
      (c) => purgeTrash(h.wiring.deps, c, 0),
    );
    try {
      // Nothing is old enough yet.
      const none = (
        await h.nc.request(
          subject,
          JSON.stringify({ olderThan: new Date(Date.now() - 60_000).toISOString(), batchSize: 10 }),
        )
      ).json<JanitorReply>();
      expect(none).toMatchObject({ ok: true, processed: 0 });
      const future = new Date(Date.now() + 60_000).toISOString();
      const first = (
        await h.nc.request(subject, JSON.stringify({ olderThan: future, batchSize: 2 }))
      ).json<JanitorReply>();
      expect(first).toMatchObject({ ok: true, processed: 2, more: true });
      let rest = (
        await h.nc.request(subject, JSON.stringify({ olderThan: future, batchSize: 10 }))
      ).json<JanitorReply>();
      while (rest.more)
        rest = (
          await h.nc.request(subject, JSON.stringify({ olderThan: future, batchSize: 10 }))
        ).json<JanitorReply>();
      const bad = (await h.nc.request(subject, JSON.stringify({ olderThan: 'nope' }))).json<JanitorReply>();
      expect(bad.ok).toBe(false);
    } finally {
      await responder.close();
    }
    for (const id of ids.slice(0, 3)) await eventually(eventFor(p, 'document.purged', id));
    await h.wiring.relay.flush();
    expect(await h.probe.storedCount(p, 'tr')).toBe(2);
    expect(
      (await h.call('GET', `/api/data/tr/${ids[0]}?include_deleted=true`, { projectId: p })).status,
    ).toBe(404);
    expect((await h.call('POST', `/api/data/tr/${ids[0]}/restore`, { projectId: p })).status).toBe(404);
    expect(await h.wiring.deps.documents.documentCount(p)).toBe(2);
    expect((await h.call('POST', '/api/data/tr', { projectId: p, body: {} })).status).toBe(201);
  });

  it('purges nothing younger than its own grace period, whatever cutoff the janitor sends', async () => {
    const p = h.newProject();
    await register(h, p, 'grace');
    const id = (await h.call('POST', '/api/data/grace', { projectId: p, body: {} })).body._id as string;
    await h.call('DELETE', `/api/data/grace/${id}`, { projectId: p });
    const subject = `test.purge.${randomUUID()}`;
    // The data service's grace is an hour; a forged command asks for everything up to next year.
    const responder = answerJanitor(
      h.nc,
      subject,
      (await import('@baas/common')).createLogger('t', 'silent'),
      (c) => purgeTrash(h.wiring.deps, c, 3600),
    );
    try {
      const future = new Date(Date.now() + 365 * 86400_000).toISOString();
      let reply: JanitorReply;
      do
        reply = (
          await h.nc.request(subject, JSON.stringify({ olderThan: future, batchSize: 1000 }))
        ).json<JanitorReply>();
      while (reply.more);
      expect(reply.ok).toBe(true);
    } finally {
      await responder.close();
    }
    const still = await h.call('GET', `/api/data/grace/${id}?include_deleted=true`, { projectId: p });
    expect(still.status).toBe(200);
    expect((await h.call('POST', `/api/data/grace/${id}/restore`, { projectId: p })).status).toBe(200);
    expect(events.some((e) => e.projectId === p && e.type === 'document.purged')).toBe(false);
  });

  it('lets exactly 10 of 30 parallel inserts through a quota of 10', async () => {
    const p = h.newProject(10);
    await register(h, p, 'race');
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) => h.call('POST', '/api/data/race', { projectId: p, body: { i } })),
    );
    expect(rs.filter((r) => r.status === 201)).toHaveLength(10);
    expect(rs.filter((r) => r.status === 403 && r.body.code === 'QUOTA_EXCEEDED')).toHaveLength(20);
    expect(await h.wiring.deps.documents.documentCount(p)).toBe(10);
    expect(await h.probe.storedCount(p, 'race')).toBe(10);
  });

  it('loses none of 20 concurrent updates of one document', async () => {
    const p = h.newProject();
    await register(h, p, 'conc');
    const id = (await h.call('POST', '/api/data/conc', { projectId: p, body: {} })).body._id;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.call('PATCH', `/api/data/conc/${id}`, { projectId: p, body: { [`f${i}`]: i } }),
      ),
    );
    const doc = (await h.call('GET', `/api/data/conc/${id}`, { projectId: p })).body;
    for (let i = 0; i < 20; i++) expect(doc[`f${i}`]).toBe(i);
  });

  it('trashes a document once when deletes race: one 200, the others 404, never a 400', async () => {
    // On MongoDB both writes' markers were upserted at once, and the loser's duplicate key came
    // back as 400 DUPLICATE_VALUE (found by test/e2e/concurrent-duplicates-sweep.test.ts).
    for (let round = 0; round < 5; round++) {
      const p = h.newProject();
      await register(h, p, 'raced');
      const id = (await h.call('POST', '/api/data/raced', { projectId: p, body: {} })).body._id;
      const rs = await Promise.all(
        Array.from({ length: 8 }, () => h.call('DELETE', `/api/data/raced/${id}`, { projectId: p })),
      );
      expect(rs.map((r) => `${r.status} ${r.body?.code ?? ''}`).sort()).toEqual([
        '200 ',
        ...Array.from({ length: 7 }, () => '404 DOCUMENT_NOT_FOUND'),
      ]);
    }
  });

  it("removes a deleted project's documents, catalogue entries and quota counter, and nothing of another", async () => {
    const p = h.newProject();
    const other = h.newProject();
    await register(h, p, 'gone');
    await register(h, other, 'gone');
    await h.call('POST', '/api/data/gone', { projectId: p, body: { x: 1 } });
    await h.call('POST', '/api/data/gone', { projectId: other, body: { x: 1 } });
    await dropProjectData(h.wiring.deps, p);
    await dropProjectData(h.wiring.deps, p); // idempotent on redelivery
    // On MongoDB a definition whose events are not relayed yet goes once the relay published them.
    await until(async () => (await h.probe.projectLeftovers(p)) === 0, 15_000, 'no leftovers of the project');
    expect(await h.wiring.deps.catalogue.list(p)).toEqual([]);
    expect(await h.wiring.deps.documents.documentCount(p)).toBe(0);
    expect(await h.probe.projectLeftovers(other)).toBeGreaterThan(0);
    expect((await h.call('GET', '/api/data/gone', { projectId: other })).body.data.total).toBe(1);
  });

  it('stores the fields as given, where the project reads them', async () => {
    const p = h.newProject();
    await register(h, p, 'iso');
    const d = (await h.call('POST', '/api/data/iso', { projectId: p, body: { x: 1 } })).body;
    expect(await h.probe.storedField(p, 'iso', d._id, 'x')).toBe(1);
    expect(await h.probe.storedCount(h.newProject(), 'iso')).toBe(0);
  });
});
