import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ObjectId } from 'mongodb';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  answerJanitor,
  pruneProcessedEvents,
  type JanitorReply,
  connectNats,
  createEvent,
  createLogger,
  idempotent,
  JetStreamBus,
  trustedProjectId,
  type ConsumerHandle,
  type EventEnvelope,
  type ProcessedEvents,
} from '../../src';
import { infra, requireInfra, storeNeed, uniqueDbName } from '../../../../test/support/infra';
import { freshPostgresDatabase } from '../../../../test/support/postgres';
import { until } from '../../../../test/support/until';
import { NO_MIGRATIONS } from './pg-support';

/**
 * Issue 12, item 9 and "Also": delivery is at least once and a crash between claim and effect
 * loses nothing; consumers handle messages with a bounded worker pool. On the store TEST_STORE
 * names (run the tier once per store).
 */
const logger = createLogger('test', 'silent');
let processed: ProcessedEvents;
let closeStore: () => Promise<void>;
/** Where a consumer process finds the same processed-events store. */
let storeEnv: Record<string, string>;
let nc: NatsConnection;
let bus: JetStreamBus;
const pid = () => trustedProjectId(new ObjectId().toHexString());
const durable = (name: string) => `test-${name}-${randomBytes(4).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** processes/consumer-worker.js in a process of its own (the built @baas/common), and what it printed. */
class ConsumerProcess {
  readonly lines: string[] = [];
  /** When the process printed each line, by its own clock (the first time, for a repeated line). */
  private readonly times = new Map<string, number>();
  private stderr = '';
  private exited = false;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const tab = l.lastIndexOf('\t');
      const text = tab < 0 ? l : l.slice(0, tab);
      // a line without its time (every line the worker says has one) is kept, untimed
      if (tab >= 0 && !this.times.has(text)) this.times.set(text, Number(l.slice(tab + 1)));
      this.lines.push(text);
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    child.on('exit', () => (this.exited = true));
  }

  static start(env: Record<string, string>): ConsumerProcess {
    const script = join(__dirname, 'processes', 'consumer-worker.js');
    return new ConsumerProcess(spawn(process.execPath, [script], { env: { ...process.env, ...env } }));
  }

  async waitFor(line: string, ms = 15_000): Promise<void> {
    await until(
      () => {
        if (this.exited && !this.lines.includes(line))
          throw new Error(`the consumer process exited before "${line}": ${this.stderr}`);
        return this.lines.includes(line);
      },
      ms,
      `the consumer process to print "${line}" (is @baas/common built? npm run build)`,
    );
  }

  /** The process's clock when it printed `line`. */
  printedAt(line: string): number {
    const at = this.times.get(line);
    if (at === undefined) throw new Error(`the consumer process has not printed "${line}" with its time`);
    return at;
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats');
  if (infra.store === 'postgres') {
    const { PgProcessedEvents } = await import('../../src/postgres');
    const db = await freshPostgresDatabase('delivery_it', NO_MIGRATIONS);
    processed = new PgProcessedEvents(db.pool);
    closeStore = db.drop;
    storeEnv = { STORE_URL: db.url };
  } else {
    const { MongoClient } = await import('mongodb');
    const { MongoProcessedEvents } = await import('../../src/mongo');
    const client = await MongoClient.connect(infra.mongoUrl);
    const db = client.db(uniqueDbName('delivery_it'));
    processed = new MongoProcessedEvents(db);
    storeEnv = { STORE_URL: infra.mongoUrl, STORE_DB: db.databaseName };
    closeStore = async () => {
      await db.dropDatabase();
      await client.close();
    };
  }
  nc = await connectNats(infra.natsUrl, 'delivery-test', logger);
  bus = await JetStreamBus.create(nc, logger);
});

afterAll(async () => {
  await nc?.drain();
  await closeStore?.();
});

describe(`processed events with leases (${infra.store})`, () => {
  it('holds a claim for its lease, then lets a redelivery take it over; done is final', async () => {
    const id = randomBytes(8).toString('hex');
    const first = await processed.claim('c', id, 400);
    expect(first.status).toBe('claimed');
    const busy = await processed.claim('c', id, 400);
    expect(busy.status).toBe('busy');
    expect(busy.status === 'busy' && busy.retryInMs).toBeGreaterThan(0);
    expect(busy.status === 'busy' && busy.retryInMs).toBeLessThanOrEqual(400);
    await sleep(500);
    const second = await processed.claim('c', id, 400);
    expect(second.status).toBe('claimed');
    if (first.status !== 'claimed' || second.status !== 'claimed') throw new Error('unreachable');
    expect(second.token).not.toBe(first.token);
    // The overtaken handler fails: it cannot drop its successor's claim.
    await processed.release('c', id, first.token);
    expect((await processed.claim('c', id, 60_000)).status).toBe('busy');
    await processed.complete('c', id);
    await sleep(500);
    expect(await processed.claim('c', id, 400)).toEqual({ status: 'done' });
    // Consumers are independent.
    expect((await processed.claim('other', id, 400)).status).toBe('claimed');
  });

  it('gives an expired claim to exactly one of many concurrent redeliveries', async () => {
    const id = randomBytes(8).toString('hex');
    expect((await processed.claim('c', id, 200)).status).toBe('claimed');
    await sleep(300);
    const results = await Promise.all(Array.from({ length: 8 }, () => processed.claim('c', id, 200)));
    expect(results.filter((r) => r.status === 'claimed')).toHaveLength(1);
  });

  it('releases the claim of a failed handler so the next delivery runs it at once', async () => {
    const e = createEvent('user.deleted', pid(), { userId: 'u' });
    let effects = 0;
    let fail = true;
    const handler = idempotent(processed, 'flaky', async () => {
      if (fail) throw new Error('transient');
      effects++;
    });
    await expect(handler(e)).rejects.toThrow('transient');
    fail = false;
    await handler(e);
    await handler(e);
    expect(effects).toBe(1);
  });

  it('prunes records claimed before the cutoff, at most the limit per call', async () => {
    const ids = Array.from({ length: 3 }, () => randomBytes(8).toString('hex'));
    const before = new Date(Date.now() - 1000);
    for (const id of ids) await processed.claim('prune', id, 1000);
    await processed.complete('prune', ids[0]!);
    await processed.prune(before, 100);
    // Ours are younger than that cutoff: all kept.
    expect(await processed.claim('prune', ids[0]!, 1000)).toEqual({ status: 'done' });
    expect((await processed.claim('prune', ids[1]!, 60_000)).status).toBe('busy');
    await sleep(20);
    const cutoff = new Date();
    // Everything older than the cutoff goes, also earlier tests' records: count only ours.
    let pruned = 0;
    for (;;) {
      const n = await processed.prune(cutoff, 2);
      expect(n).toBeLessThanOrEqual(2);
      pruned += n;
      if (n < 2) break;
    }
    expect(pruned).toBeGreaterThanOrEqual(3);
    // A pruned event is claimable again (which is why the retention outlives every redelivery).
    expect((await processed.claim('prune', ids[0]!, 1000)).status).toBe('claimed');
    const young = randomBytes(8).toString('hex');
    await processed.claim('prune', young, 1000);
    await processed.prune(cutoff, 100);
    expect((await processed.claim('prune', young, 60_000)).status).toBe('busy');
  });
});

describe(`the janitor's prune of idempotency records (${infra.store})`, () => {
  it('prunes through a janitor command, never records younger than the service’s own retention', async () => {
    const ids = Array.from({ length: 3 }, () => randomBytes(8).toString('hex'));
    for (const id of ids) {
      await processed.claim('janitor-prune', id, 1000);
      await processed.complete('janitor-prune', id);
    }
    const subject = `test.prune.${randomBytes(4).toString('hex')}`;
    let retentionSeconds = 3600;
    const responder = answerJanitor(nc, subject, logger, (cmd) =>
      pruneProcessedEvents(processed, cmd, retentionSeconds),
    );
    const ask = async (olderThan: Date): Promise<JanitorReply> => {
      let reply: JanitorReply;
      do
        reply = (
          await nc.request(subject, JSON.stringify({ olderThan: olderThan.toISOString(), batchSize: 2 }), {
            timeout: 10_000,
          })
        ).json<JanitorReply>();
      while (reply.more);
      return reply;
    };
    try {
      // A forged command asks for everything up to next year: the hour of retention holds.
      expect((await ask(new Date(Date.now() + 365 * 86400_000))).ok).toBe(true);
      for (const id of ids)
        expect(await processed.claim('janitor-prune', id, 1000)).toEqual({ status: 'done' });
      retentionSeconds = 0;
      await sleep(20);
      expect((await ask(new Date())).ok).toBe(true);
      for (const id of ids) expect((await processed.claim('janitor-prune', id, 1000)).status).toBe('claimed');
    } finally {
      await responder.close();
    }
  });
});

describe(`JetStream consumers (${infra.store})`, () => {
  const stuck: Array<() => void> = [];
  const hang = () => new Promise<void>((resolve) => stuck.push(resolve));
  const handles: ConsumerHandle[] = [];

  afterAll(async () => {
    for (const r of stuck) r();
    await Promise.all(handles.map((h) => h.stop()));
  });

  it('finishes an event whose consumer died between claim and effect, once, after the lease', async () => {
    const projectId = pid();
    const name = durable('crash');
    let claimedByDead = false;
    let claimedAt = 0;
    // The process that dies: it claims the event and never gets to the effect (nor to an ack).
    const dead = await bus.consume({
      durable: name,
      types: ['project.deleted'],
      ackWaitMs: 1000,
      concurrency: 1,
      handler: idempotent(processed, name, async (e: EventEnvelope) => {
        if (e.projectId !== projectId) return;
        claimedByDead = true;
        claimedAt = Date.now();
        await hang();
      }),
    });
    const event = createEvent('project.deleted', projectId, {});
    await bus.publish(event);
    await until(() => claimedByDead, 10_000, 'the first consumer to claim the event');
    // It stops pulling, as a killed process does; its handler never returns.
    void dead.stop();

    const effects: string[] = [];
    let effectAt = 0;
    handles.push(
      await bus.consume({
        durable: name,
        types: ['project.deleted'],
        ackWaitMs: 1000,
        handler: idempotent(processed, name, async (e: EventEnvelope) => {
          if (e.projectId !== projectId) return;
          effects.push(e.id);
          effectAt = Date.now();
        }),
      }),
    );
    await until(() => effects.length === 1, 15_000, 'the second consumer to take the claim over');
    // Not before the claim's lease (1.5 x the ack wait) had run out.
    expect(effectAt - claimedAt).toBeGreaterThanOrEqual(1400);
    await sleep(2500);
    expect(effects).toEqual([event.id]);
    expect(await processed.claim(name, event.id, 1000)).toEqual({ status: 'done' });
  });

  it('finishes an event whose consumer process was killed (SIGKILL) between claim and effect, once', async () => {
    const projectId = pid();
    const name = durable('kill');
    const env = { ...storeEnv, NATS_URL: infra.natsUrl, DURABLE: name, PROJECT_ID: projectId };
    const doomed = ConsumerProcess.start({ ...env, MODE: 'hang' });
    const survivors: ConsumerProcess[] = [];
    try {
      await doomed.waitFor('ready');
      const event = createEvent('project.deleted', projectId, {});
      await bus.publish(event);
      await doomed.waitFor(`claimed ${event.id}`);
      // as the worker saw it: this process's polling (100 ms) and a busy machine add to a time taken here
      const claimedAt = doomed.printedAt(`claimed ${event.id}`);
      doomed.kill(); // no shutdown hook runs: the claim stays in progress, the message unacked

      const next = ConsumerProcess.start({ ...env, MODE: 'work' });
      survivors.push(next);
      await next.waitFor(`effect ${event.id}`, 20_000);
      // The redelivery came after the ack wait, and the takeover only after the claim's lease.
      expect(next.printedAt(`effect ${event.id}`) - claimedAt).toBeGreaterThanOrEqual(1400);
      // A second process on the same consumer sees nothing more of it: the effect happened once.
      const other = ConsumerProcess.start({ ...env, MODE: 'work' });
      survivors.push(other);
      await other.waitFor('ready');
      await sleep(3000);
      expect(next.lines.filter((l) => l === `effect ${event.id}`)).toHaveLength(1);
      expect(other.lines.filter((l) => l.startsWith('effect'))).toEqual([]);
      expect(await processed.claim(name, event.id, 1000)).toEqual({ status: 'done' });
    } finally {
      doomed.kill();
      for (const p of survivors) p.kill();
    }
  }, 60_000);

  it('keeps handling other messages while one handler is stuck on a slow message', async () => {
    const projectId = pid();
    const handled: string[] = [];
    let slowStarted = false;
    handles.push(
      await bus.consume({
        durable: durable('pool'),
        types: ['project.updated'],
        concurrency: 4,
        ackWaitMs: 60_000,
        handler: async (e) => {
          if (e.projectId !== projectId) return;
          const [what] = e.data.changed;
          if (what === 'slow') {
            slowStarted = true;
            await hang();
          }
          handled.push(what!);
        },
      }),
    );
    await bus.publish(createEvent('project.updated', projectId, { changed: ['slow'] }));
    await until(() => slowStarted, 10_000, 'the slow message to start');
    for (let i = 0; i < 6; i++)
      await bus.publish(createEvent('project.updated', projectId, { changed: [`fast-${i}`] }));
    await until(() => handled.length === 6, 10_000, 'the other messages');
    expect(handled.sort()).toEqual(['fast-0', 'fast-1', 'fast-2', 'fast-3', 'fast-4', 'fast-5']);
  });

  it('does not hold other messages back while a failed one waits for its retry', async () => {
    const projectId = pid();
    const handled: string[] = [];
    let failures = 0;
    handles.push(
      await bus.consume({
        durable: durable('retry'),
        types: ['project.key_rotated'],
        concurrency: 1,
        backoffMs: [3000],
        handler: async (e) => {
          if (e.projectId !== projectId) return;
          const keyType = (e.data as { keyType: string }).keyType;
          if (keyType === 'secret' && failures++ === 0) throw new Error('smtp timeout');
          handled.push(keyType);
        },
      }),
    );
    await bus.publish(createEvent('project.key_rotated', projectId, { keyType: 'secret' }));
    await until(() => failures === 1, 10_000, 'the first attempt');
    const at = Date.now();
    await bus.publish(createEvent('project.key_rotated', projectId, { keyType: 'publishable' }));
    await until(() => handled.includes('publishable'), 10_000, 'the next message');
    // One worker, and the failed message's retry is 3 s away: the next one did not wait for it.
    expect(Date.now() - at).toBeLessThan(2500);
    expect(handled).toEqual(['publishable']);
    await until(() => handled.length === 2, 10_000, 'the retry');
    expect(handled).toEqual(['publishable', 'secret']);
  });

  it('starts a deliverNew consumer at the events published after it, and a plain one at the first', async () => {
    const projectId = pid();
    const before = createEvent('project.updated', projectId, { changed: ['name'] });
    const after = createEvent('project.updated', projectId, { changed: ['settings'] });
    await bus.publish(before);
    const fresh: string[] = [];
    const whole: string[] = [];
    const only = (into: string[]) => async (e: EventEnvelope) =>
      void (e.projectId === projectId && into.push(e.id));
    handles.push(
      await bus.consume({
        durable: durable('new'),
        inactiveThresholdMs: 60_000,
        deliverNew: true,
        types: ['project.updated'],
        handler: only(fresh),
      }),
      await bus.consume({
        durable: durable('all'),
        inactiveThresholdMs: 60_000,
        types: ['project.updated'],
        handler: only(whole),
      }),
    );
    await bus.publish(after);
    await until(() => fresh.length >= 1 && whole.length >= 2, 10_000, 'both consumers');
    await sleep(300);
    expect(fresh).toEqual([after.id]);
    expect(whole).toEqual([before.id, after.id]);
  });
});
