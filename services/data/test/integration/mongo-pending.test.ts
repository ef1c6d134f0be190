import { ObjectId } from 'mongodb';
import { createEvent, type ProjectId } from '@baas/common';
import { MongoPendingIndex } from '../../src/adapters/mongo/pending-index';
import { purgeTrash } from '../../src/domain/documents/purge-trash';
import { describeOnStore } from '../../../../test/support/infra';
import { startHarness, register, type Harness } from './harness';

/**
 * MongoDB keeps each project in its own database, so background work follows two small indexes
 * instead of visiting every collection (issue 11 item 7). Runs in the MongoDB pass.
 */
describeOnStore('mongodb', 'MongoDB pending indexes', () => {
  let h: Harness;
  let pending: MongoPendingIndex;
  beforeAll(async () => {
    h = await startHarness('data_pending');
    pending = new MongoPendingIndex(h.probe.mongoDb());
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('MongoDB background work follows what is pending', () => {
    it('purges through the trash index only, and a marker whose document is gone or restored purges nothing', async () => {
      const p = h.newProject();
      await register(h, p, 'a');
      await register(h, p, 'b');
      const trashed = (await h.call('POST', '/api/data/a', { projectId: p, body: { x: 1 } })).body
        ._id as string;
      const restored = (await h.call('POST', '/api/data/b', { projectId: p, body: { x: 2 } })).body
        ._id as string;
      await h.call('DELETE', `/api/data/a/${trashed}`, { projectId: p });
      await h.call('DELETE', `/api/data/b/${restored}`, { projectId: p });
      await h.call('POST', `/api/data/b/${restored}/restore`, { projectId: p });
      // A marker a crash left behind, for a document that never existed.
      await pending.markTrash(p, 'a', new ObjectId().toHexString(), new Date(0));
      const future = new Date(Date.now() + 60_000);
      const first = await purgeTrash(h.wiring.deps, future, 10);
      expect(first).toMatchObject({ ok: true, processed: 1, more: false });
      expect(await pending.trashedBefore(future, 10)).toEqual([]);
      expect(await h.probe.storedCount(p, 'b')).toBe(1);
      await h.wiring.relay.flush();
      expect(await h.probe.storedCount(p, 'a')).toBe(0);
    });

    it('publishes events a crash left in a document, found through the outbox index', async () => {
      const p: ProjectId = h.newProject();
      await register(h, p, 'c');
      const id = new ObjectId();
      const event = createEvent('document.created', p, { collection: 'c', documentId: id.toHexString() });
      // As if the service died after writing, before relaying: the marker, then the document.
      await pending.markOutbox(p, 'c', id.toHexString());
      await h.probe.insertRaw(p, 'c', { _id: id, isDeleted: false, _outbox: [event] });
      await h.wiring.relay.flush();
      expect(await h.probe.pendingEvents(p, 'c', id.toHexString())).toBe(0);
    });
  });
});
