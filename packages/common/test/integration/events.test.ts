import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  connectNats,
  createEvent,
  createLogger,
  DLQ_STREAM,
  idempotent,
  JetStreamBus,
  trustedProjectId,
  type EventEnvelope,
} from '../../src';
import { MongoProcessedEvents, OutboxRelay, purgeWithEvents, pushEvents, withEvents } from '../../src/mongo';
import { describeOnStore, infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';

const logger = createLogger('test', 'silent');
let mongo: MongoClient;
let db: Db;
let nc: NatsConnection;
let bus: JetStreamBus;

const pid = () => trustedProjectId(new ObjectId().toHexString());
const durable = (name: string) => `test-${name}-${randomBytes(4).toString('hex')}`;

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A durable consumer of `types` that keeps what one project's events deliver, in order. */
async function receive(name: string, types: EventEnvelope['type'][], projectId: string) {
  const received: EventEnvelope[] = [];
  const handle = await bus.consume({
    durable: durable(name),
    types,
    handler: async (e) => void (e.projectId === projectId && received.push(e)),
  });
  return { received, handle };
}

describeOnStore('mongodb', 'outbox in documents (MongoDB) and the JetStream bus', () => {
  beforeAll(async () => {
    await requireInfra('mongo', 'nats');
    mongo = await MongoClient.connect(infra.mongoUrl);
    db = mongo.db(uniqueDbName('events'));
    nc = await connectNats(infra.natsUrl, 'events-test', logger);
    bus = await JetStreamBus.create(nc, logger);
  });

  afterAll(async () => {
    await nc?.drain();
    await mongo?.close();
  });

  describe('outbox relay and JetStream bus', () => {
    it('publishes an event recorded with an insert exactly once and clears it from the document', async () => {
      const projectId = pid();
      const { received, handle } = await receive('insert', ['project.created'], projectId);
      const coll = db.collection('things');
      const event = createEvent('project.created', projectId, { name: 'x' });
      const { insertedId } = await coll.insertOne(withEvents({ name: 'x' }, [event]));
      const relay = new OutboxRelay({ collections: () => [coll], publisher: bus, logger });
      await relay.flush();
      // A second relay (another replica, or a restart before the $pull) publishes again: deduplicated.
      await bus.publish(event);
      await until(() => received.length >= 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(received.map((e) => e.id)).toEqual([event.id]);
      expect(await coll.findOne({ _id: insertedId })).not.toHaveProperty('_outbox');
      await handle.stop();
    });

    it('publishes an event pushed with an update and deletes a purged document after relaying it', async () => {
      const projectId = pid();
      const { received, handle } = await receive(
        'update',
        ['document.updated', 'document.purged'],
        projectId,
      );
      const coll = db.collection('docs');
      const { insertedId } = await coll.insertOne({ v: 1 });
      await coll.updateOne(
        { _id: insertedId },
        pushEvents({ $set: { v: 2 } }, [
          createEvent('document.updated', projectId, { collection: 'docs', documentId: String(insertedId) }),
        ]),
      );
      const relay = new OutboxRelay({ collections: () => [coll], publisher: bus, logger });
      await relay.relayOne(coll, insertedId);
      await until(() => received.length === 1);
      await coll.updateOne(
        { _id: insertedId },
        purgeWithEvents([
          createEvent('document.purged', projectId, { collection: 'docs', documentId: String(insertedId) }),
        ]),
      );
      await relay.flush();
      await until(() => received.length === 2);
      expect(received.map((e) => e.type)).toEqual(['document.updated', 'document.purged']);
      expect(await coll.findOne({ _id: insertedId })).toBeNull();
      await handle.stop();
    });

    /** A publisher that counts every publish and holds the first until `release(ok)`. */
    function heldPublisher() {
      const calls: string[] = [];
      let settle!: (ok: boolean) => void;
      const held = new Promise<boolean>((r) => (settle = r));
      const publisher = {
        publish: async (e: EventEnvelope) => {
          calls.push(e.id);
          if (calls.length === 1 && !(await held)) throw new Error('publish failed');
          await bus.publish(e);
        },
      };
      return { calls, publisher, release: (ok: boolean) => settle(ok) };
    }

    it('relays a document once at a time: a pass during its immediate relay waits for it, and that relay reads it again for events pushed meanwhile', async () => {
      const projectId = pid();
      const coll = db.collection('overlap');
      const updated = (v: number) =>
        createEvent('document.updated', projectId, { collection: 'overlap', documentId: `d${v}` });
      const first = updated(1);
      const { insertedId } = await coll.insertOne(withEvents({ v: 1 }, [first]));
      const { calls, publisher, release } = heldPublisher();
      const relay = new OutboxRelay({ collections: () => [coll], publisher, logger });
      const immediate = relay.relayOne(coll, insertedId);
      await until(() => calls.length === 1);
      // meanwhile another write pushes an event, a pass begins and the write's own relay is asked
      const second = updated(2);
      await coll.updateOne({ _id: insertedId }, pushEvents({ $set: { v: 2 } }, [second]));
      let flushed = false;
      const flush = relay.flush().then(() => (flushed = true));
      await relay.relayOne(coll, insertedId); // returns at once: the document is being relayed
      await new Promise((r) => setTimeout(r, 200));
      expect({ flushed, calls }).toEqual({ flushed: false, calls: [first.id] });
      release(true);
      await flush; // the pass ends once what was pending when it began is out
      expect(calls).toEqual([first.id, second.id]);
      await immediate;
      expect(calls).toEqual([first.id, second.id]);
      expect(await coll.findOne({ _id: insertedId })).not.toHaveProperty('_outbox');
    });

    it('a pass that waited for a failed immediate relay relays the document itself', async () => {
      const projectId = pid();
      const { received, handle } = await receive('failed-immediate', ['document.updated'], projectId);
      const coll = db.collection('overlap-failed');
      const event = createEvent('document.updated', projectId, { collection: 'c', documentId: 'd' });
      const { insertedId } = await coll.insertOne(withEvents({ v: 1 }, [event]));
      const { calls, publisher, release } = heldPublisher();
      const relay = new OutboxRelay({ collections: () => [coll], publisher, logger });
      const immediate = relay.relayOne(coll, insertedId);
      await until(() => calls.length === 1);
      let flushed = false;
      const flush = relay.flush().then(() => (flushed = true));
      await new Promise((r) => setTimeout(r, 200)); // the pass has found the document held
      expect(flushed).toBe(false);
      release(false);
      await immediate; // logged and left to the periodic pass, which is already here
      await flush;
      expect(calls).toEqual([event.id, event.id]);
      await until(() => received.length === 1);
      expect(received.map((e) => e.id)).toEqual([event.id]);
      expect(await coll.findOne({ _id: insertedId })).not.toHaveProperty('_outbox');
      await handle.stop();
    });

    it('relays events left behind by a crash on the next periodic pass', async () => {
      const projectId = pid();
      const { received, handle } = await receive('crash', ['project.deleted'], projectId);
      const coll = db.collection('crashed');
      // The write happened, the process died before relaying: only the document knows.
      const event = createEvent('project.deleted', projectId, {});
      await coll.insertOne(withEvents({ tombstone: true }, [event]));
      const relay = new OutboxRelay({ collections: () => [coll], publisher: bus, logger, intervalMs: 50 });
      relay.start();
      await until(() => received.length === 1);
      await relay.stop();
      expect(received.map((e) => e.id)).toEqual([event.id]);
      await handle.stop();
    });

    it('redelivers a failed event with backoff and dead-letters it after maxDeliver attempts', async () => {
      const projectId = pid();
      const name = durable('poison');
      let attempts = 0;
      const handle = await bus.consume({
        durable: name,
        types: ['project.updated'],
        maxDeliver: 3,
        backoffMs: [50],
        handler: async (e) => {
          if (e.projectId !== projectId) return;
          attempts++;
          throw new Error('boom');
        },
      });
      await bus.publish(createEvent('project.updated', projectId, { changed: ['x'] }));
      await until(() => attempts === 3);
      const jsm = await jetstreamManager(nc);
      let found = false;
      await until(() => found, 3000).catch(() => undefined);
      const msg = await jsm.streams.getMessage(DLQ_STREAM, { last_by_subj: `baas.dlq.${name}` });
      found = msg !== null;
      expect(found).toBe(true);
      expect(msg?.json<EventEnvelope>().projectId).toBe(projectId);
      await new Promise((r) => setTimeout(r, 300));
      expect(attempts).toBe(3);
      await handle.stop();
    });

    it('gives a redelivered event one effect through the processed-events store', async () => {
      const store = new MongoProcessedEvents(db);
      let effects = 0;
      const handler = idempotent(store, 'c1', async () => void effects++);
      const e = createEvent('user.deleted', pid(), { userId: 'u' });
      await handler(e);
      await handler(e);
      expect(effects).toBe(1);
      // A failed attempt releases its claim so the redelivery runs it.
      let fail = true;
      const flaky = idempotent(store, 'c2', async () => {
        if (fail) throw new Error('transient');
        effects++;
      });
      await expect(flaky(e)).rejects.toThrow('transient');
      fail = false;
      await flaky(e);
      expect(effects).toBe(2);
    });
  });
});
