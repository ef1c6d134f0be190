import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectNats,
  createLogger,
  JANITOR_QUEUE,
  type JanitorCommand,
  type JanitorReply,
} from '@baas/common';
import { infra, requireInfra } from '../../../../test/support/infra';
import { RedisLease } from '../../src/adapters/redis-lease';
import { NatsCommandSender } from '../../src/adapters/nats-command-sender';
import { runSweep, type SweepObserver, type SweepTask } from '../../src/domain/sweep';

const logger = createLogger('test', 'silent');
let redis: Redis;
let nc: NatsConnection;

beforeAll(async () => {
  await requireInfra('redis', 'nats');
  redis = new Redis(infra.redisUrl);
  nc = await connectNats(infra.natsUrl, 'janitor-test', logger);
});

afterAll(async () => {
  await nc?.drain();
  redis?.disconnect();
});

const noopObserver: SweepObserver = {
  processed: () => undefined,
  failed: () => undefined,
  duration: () => undefined,
};

describe('janitor lease (real Redis)', () => {
  it('lets one holder at a time, frees on release and on expiry', async () => {
    const key = `test:lease:${randomBytes(4).toString('hex')}`;
    const a = new RedisLease(redis, key, 300);
    const b = new RedisLease(redis, key, 300);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(await b.renew()).toBe(false);
    await b.release(); // not its lease: must not free it
    expect(await b.acquire()).toBe(false);
    await a.release();
    expect(await b.acquire()).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(await a.acquire()).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
  });
});

describe('two janitors at once (real Redis and NATS)', () => {
  it('purge each item exactly once', async () => {
    const subject = `test.janitor.${randomBytes(4).toString('hex')}`;
    // The owner: 25 eligible items, handed out in batches, each purge counted per item.
    const items = new Map<number, number>(Array.from({ length: 25 }, (_, i) => [i, 0]));
    const sub = nc.subscribe(subject, {
      queue: JANITOR_QUEUE,
      callback: (_err, msg) => {
        const cmd = msg.json<JanitorCommand>();
        const batch = [...items.entries()].filter(([, n]) => n === 0).slice(0, cmd.batchSize);
        for (const [id] of batch) items.set(id, (items.get(id) ?? 0) + 1);
        const remaining = [...items.values()].filter((n) => n === 0).length;
        const reply: JanitorReply = { ok: true, processed: batch.length, more: remaining > 0 };
        setTimeout(() => msg.respond(JSON.stringify(reply)), 20);
      },
    });
    const leaseKey = `test:lease:${randomBytes(4).toString('hex')}`;
    const task: SweepTask = { name: 'purge-trash', subject, graceSeconds: 0 };
    const janitor = () =>
      runSweep(
        {
          lease: new RedisLease(redis, leaseKey, 5000),
          sender: new NatsCommandSender(nc, 2000),
          logger,
          observer: noopObserver,
          batchSize: 4,
          maxBatches: 20,
        },
        [task],
      );
    const ran = await Promise.all([janitor(), janitor()]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    expect([...items.values()].every((n) => n === 1)).toBe(true);
    sub.unsubscribe();
  });
});
