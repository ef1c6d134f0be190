import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { S3ObjectStore } from '../../src/adapters/s3-object-store';
import { sweepOrphans, type OrphanSweepObserver } from '../../src/domain/files/sweep-orphans';
import type { FileRecord } from '../../src/ports';
import { infra, requireInfra, storeNeed } from '../../../../test/support/infra';
import { newProjectId, startHarness, type Harness } from './harness';

/**
 * Issue 12, items 10 and 11: the orphan sweep against the real S3 (versitygw) on the store
 * TEST_STORE names. It never trusts the janitor's cutoff, aborts when the bucket is missing,
 * deletes a record only when two sweeps missed its object, and stops at a deletion cap.
 */
const body = () => Readable.from([randomBytes(16)]);
const name = () => randomBytes(16).toString('base64url').slice(0, 22);

function counter() {
  const seen = { deleted: { pending: 0, record: 0, object: 0 }, stops: [] as string[] };
  const observer: OrphanSweepObserver = {
    deleted: (kind, n) => void (seen.deleted[kind] += n),
    aborted: (reason) => void seen.stops.push(reason),
  };
  return { seen, observer };
}

describe(`the orphan sweep on S3 (${infra.store})`, () => {
  let h: Harness;

  beforeEach(async () => {
    await requireInfra(storeNeed(), 's3');
    h = await startHarness('s3', 1024 * 1024);
  });
  afterEach(async () => {
    await h?.close();
  });

  async function completeRecord(createdAt: Date, withObject: boolean): Promise<FileRecord> {
    const projectId = newProjectId();
    const rec: FileRecord = {
      path: `${projectId}/${name()}.png`,
      projectId,
      status: 'pending',
      contentType: 'image/png',
      originalName: 'x.png',
      size: 0,
      reserved: 0,
      createdAt,
    };
    await h.files.insertPending(rec);
    await h.quota.reserve(projectId, 16, 1e9);
    await h.files.complete(projectId, rec.path, 16, []);
    if (withObject) await h.store.put(rec.path, body(), 'image/png');
    return rec;
  }

  const sweep = (
    olderThan: Date,
    policy: { graceSeconds: number; maxDeletions: number; observer?: OrphanSweepObserver },
  ) =>
    sweepOrphans(
      { ...h.deps, cursor: h.cursor },
      { olderThan: olderThan.toISOString(), batchSize: 100 },
      policy,
    );

  it('deletes nothing younger than its own grace period when the janitor sends a future cutoff', async () => {
    const pid = newProjectId();
    const orphan = `${pid}/${name()}.png`;
    await h.store.put(orphan, body(), 'image/png');
    const lost = await completeRecord(new Date(Date.now() - 60_000), false);
    const stale = `${pid}/${name()}.png`;
    await h.files.insertPending({
      ...lost,
      path: stale,
      projectId: pid,
      status: 'pending',
      createdAt: new Date(Date.now() - 60_000),
    });
    const nextYear = new Date(Date.now() + 365 * 86400_000);
    for (let i = 0; i < 3; i++) {
      const r = await sweep(nextYear, { graceSeconds: 3600, maxDeletions: 100 });
      expect(r).toMatchObject({ ok: true, processed: 0 });
    }
    expect(await h.store.exists(orphan)).toBe(true);
    expect(await h.files.exists(lost.projectId, lost.path)).toBe(true);
    expect(await h.files.exists(pid, stale)).toBe(true);
  });

  it('aborts on a missing bucket and deletes no record', async () => {
    const rec = await completeRecord(new Date(Date.now() - 60_000), true);
    const wrong = new S3ObjectStore({
      endpoint: infra.s3Endpoint,
      region: 'us-east-1',
      bucket: `no-such-bucket-${randomBytes(6).toString('hex')}`,
      accessKeyId: infra.s3AccessKeyId,
      secretAccessKey: infra.s3SecretAccessKey,
      spoolDir: tmpdir(),
      spoolMemoryBytes: 1024,
    });
    const { seen, observer } = counter();
    try {
      for (let i = 0; i < 3; i++) {
        const r = await sweepOrphans(
          { ...h.deps, store: wrong, cursor: h.cursor },
          { olderThan: new Date().toISOString(), batchSize: 100 },
          { graceSeconds: 0, maxDeletions: 100, observer },
        );
        expect(r).toMatchObject({ ok: false, processed: 0 });
        expect(r.error).toMatch(/object store unavailable/);
      }
      // Nor does any object call read a missing bucket as a missing object.
      await expect(wrong.delete(rec.path)).rejects.toThrow();
      await expect(wrong.get(rec.path)).rejects.toThrow();
    } finally {
      wrong.client.destroy();
    }
    expect(await h.files.exists(rec.projectId, rec.path)).toBe(true);
    expect(await h.quota.used(rec.projectId)).toBe(16);
    expect(seen.stops).toEqual(['store-unavailable', 'store-unavailable', 'store-unavailable']);
    expect(seen.deleted).toEqual({ pending: 0, record: 0, object: 0 });
  });

  it('deletes a record only when two sweeps missed its object, and forgets a miss when the object is back', async () => {
    const rec = await completeRecord(new Date(Date.now() - 60_000), false);
    const { seen, observer } = counter();
    const policy = { graceSeconds: 0, maxDeletions: 100, observer };
    await sweep(new Date(), policy);
    expect(await h.files.exists(rec.projectId, rec.path)).toBe(true);
    // The object comes back (a transient failure of the store): the miss is forgotten.
    await h.store.put(rec.path, body(), 'image/png');
    await sweep(new Date(), policy);
    await h.store.delete(rec.path);
    await sweep(new Date(), policy);
    expect(await h.files.exists(rec.projectId, rec.path)).toBe(true);
    expect(seen.deleted.record).toBe(0);
    // Missed on a second sweep in a row: now it goes, with its quota.
    await sweep(new Date(), policy);
    expect(await h.files.exists(rec.projectId, rec.path)).toBe(false);
    expect(await h.quota.used(rec.projectId)).toBe(0);
    expect(seen.deleted.record).toBe(1);
  });

  it('stops at the deletion cap for the sweep and goes on at the next', async () => {
    const pid = newProjectId();
    for (let i = 0; i < 3; i++) await h.store.put(`${pid}/${name()}.png`, body(), 'image/png');
    const live = await completeRecord(new Date(Date.now() - 60_000), true);
    const { seen, observer } = counter();
    const policy = { graceSeconds: 0, maxDeletions: 2, observer };
    const first = await sweep(new Date(Date.now() + 1000), policy);
    // At the cap: two deleted, and the janitor is told to stop for this sweep.
    expect(first).toMatchObject({ ok: true, processed: 2, more: false });
    expect(seen.stops).toEqual(['deletion-cap']);
    const second = await sweep(new Date(Date.now() + 1000), policy);
    // One past: the third goes on the next sweep, under the cap.
    expect(second).toMatchObject({ ok: true, processed: 1 });
    expect(seen.deleted.object).toBe(3);
    const left = await h.store.list({ prefix: `${pid}/`, limit: 10 });
    expect(left.items).toEqual([]);
    expect(await h.store.exists(live.path)).toBe(true);
  });
});
