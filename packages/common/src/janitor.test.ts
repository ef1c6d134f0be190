import { effectiveCutoff, pruneProcessedEvents, type ClaimResult, type ProcessedEvents } from './index';

describe('effectiveCutoff', () => {
  const now = new Date('2026-06-01T12:00:00.000Z');

  it('keeps a cutoff older than the owner’s own', () => {
    expect(effectiveCutoff('2026-05-01T00:00:00.000Z', 3600, now).toISOString()).toBe(
      '2026-05-01T00:00:00.000Z',
    );
  });

  it('clamps a cutoff younger than the owner’s grace, and a future one, to now minus the grace', () => {
    expect(effectiveCutoff('2026-06-01T11:30:00.000Z', 3600, now).toISOString()).toBe(
      '2026-06-01T11:00:00.000Z',
    );
    expect(effectiveCutoff('2999-01-01T00:00:00.000Z', 3600, now).toISOString()).toBe(
      '2026-06-01T11:00:00.000Z',
    );
  });

  it('is exactly the owner’s cutoff at the limit and one millisecond past it', () => {
    expect(effectiveCutoff('2026-06-01T11:00:00.000Z', 3600, now).toISOString()).toBe(
      '2026-06-01T11:00:00.000Z',
    );
    expect(effectiveCutoff('2026-06-01T11:00:00.001Z', 3600, now).toISOString()).toBe(
      '2026-06-01T11:00:00.000Z',
    );
    expect(effectiveCutoff('2026-06-01T10:59:59.999Z', 3600, now).toISOString()).toBe(
      '2026-06-01T10:59:59.999Z',
    );
  });
});

describe('pruneProcessedEvents', () => {
  function store() {
    const calls: Array<{ olderThan: Date; limit: number }> = [];
    const s: ProcessedEvents = {
      claim: async (): Promise<ClaimResult> => ({ status: 'done' }),
      complete: async () => undefined,
      release: async () => undefined,
      prune: async (olderThan, limit) => (calls.push({ olderThan, limit }), limit),
    };
    return { s, calls };
  }

  it('prunes up to the service’s own retention, whatever the command asks', async () => {
    const { s, calls } = store();
    const now = new Date('2026-06-01T00:00:00.000Z');
    const reply = await pruneProcessedEvents(s, { olderThan: now.toISOString(), batchSize: 10 }, 86400, now);
    expect(reply).toEqual({ ok: true, processed: 10, more: true });
    expect(calls).toEqual([{ olderThan: new Date('2026-05-31T00:00:00.000Z'), limit: 10 }]);
  });
});
