import { createLogger, type JanitorReply } from '@baas/common';
import { firstSweepDelaySeconds, runSweep, sweepTasks, type SweepObserver } from './sweep';
import type { CommandSender, Lease } from '../ports';

const logger = createLogger('test', 'silent');

function lease(held = true): Lease & { released: boolean } {
  return {
    released: false,
    acquire: async () => held,
    renew: async () => true,
    async release() {
      this.released = true;
    },
  };
}

function observer() {
  const o = { processed: {} as Record<string, number>, failures: [] as string[] };
  const obs: SweepObserver = {
    processed: (t, n) => void (o.processed[t] = (o.processed[t] ?? 0) + n),
    failed: (t) => void o.failures.push(t),
    duration: () => undefined,
  };
  return { o, obs };
}

const tasks = sweepTasks({ trashGraceSeconds: 30, orphanGraceSeconds: 60 });

describe('runSweep', () => {
  it('drives each task in batches until its owner reports nothing more', async () => {
    const replies: Record<string, JanitorReply[]> = {
      [tasks[0]!.subject]: [
        { ok: true, processed: 2, more: true },
        { ok: true, processed: 1, more: false },
      ],
      [tasks[1]!.subject]: [{ ok: true, processed: 0, more: false }],
      [tasks[2]!.subject]: [{ ok: true, processed: 5, more: false }],
    };
    for (const t of tasks.slice(3)) replies[t.subject] = [{ ok: true, processed: 1, more: false }];
    const seen: Array<{ subject: string; olderThan: string }> = [];
    const sender: CommandSender = {
      send: async (subject, c) => (
        seen.push({ subject, olderThan: c.olderThan }),
        replies[subject]!.shift()!
      ),
    };
    const { o, obs } = observer();
    const now = new Date('2026-01-01T00:01:00Z');
    expect(
      await runSweep(
        { lease: lease(), sender, logger, observer: obs, batchSize: 2, maxBatches: 10, now: () => now },
        tasks,
      ),
    ).toBe(true);
    expect(o.processed).toEqual({
      'purge-trash': 3,
      'sweep-orphans': 0,
      'purge-expired': 5,
      'prune-processed-events-auth': 1,
      'prune-processed-events-data': 1,
      'prune-processed-events-storage': 1,
      'prune-processed-events-mail': 1,
    });
    expect(seen[0]).toEqual({ subject: tasks[0]!.subject, olderThan: '2026-01-01T00:00:30.000Z' });
    // Each event consumer is asked to prune its idempotency records (it applies its own retention).
    expect(seen.filter((s) => s.subject.endsWith('.prune-processed-events')).map((s) => s.subject)).toEqual([
      'baas.janitor.auth.prune-processed-events',
      'baas.janitor.data.prune-processed-events',
      'baas.janitor.storage.prune-processed-events',
      'baas.janitor.mail.prune-processed-events',
    ]);
  });

  it('does nothing when another replica holds the lease', async () => {
    const sender: CommandSender = {
      send: async () => {
        throw new Error('must not be called');
      },
    };
    const { obs } = observer();
    expect(
      await runSweep(
        { lease: lease(false), sender, logger, observer: obs, batchSize: 1, maxBatches: 1 },
        tasks,
      ),
    ).toBe(false);
  });

  it('stops after maxBatches so a sweep always ends, and releases the lease', async () => {
    let calls = 0;
    const sender: CommandSender = { send: async () => (calls++, { ok: true, processed: 1, more: true }) };
    const l = lease();
    const { obs } = observer();
    await runSweep({ lease: l, sender, logger, observer: obs, batchSize: 1, maxBatches: 3 }, tasks);
    expect(calls).toBe(3 * tasks.length);
    expect(l.released).toBe(true);
  });

  it('counts a failing task and still runs the others', async () => {
    const sender: CommandSender = {
      send: async (subject) => {
        if (subject === tasks[0]!.subject) throw new Error('no responders');
        return { ok: true, processed: 1, more: false };
      },
    };
    const { o, obs } = observer();
    await runSweep({ lease: lease(), sender, logger, observer: obs, batchSize: 1, maxBatches: 3 }, tasks);
    expect(o.failures).toEqual(['purge-trash']);
    expect(o.processed).toMatchObject({ 'sweep-orphans': 1, 'purge-expired': 1 });
    expect(o.processed).not.toHaveProperty('purge-trash');
  });
});

describe('firstSweepDelaySeconds', () => {
  it('waits 30 s after start, or one interval when that is shorter', () => {
    expect(firstSweepDelaySeconds(300)).toBe(30);
    expect(firstSweepDelaySeconds(31)).toBe(30);
    expect(firstSweepDelaySeconds(30)).toBe(30);
    expect(firstSweepDelaySeconds(1)).toBe(1);
  });
});
