import { effectiveCutoff, type JanitorCommand, type JanitorReply } from '@baas/common';
import type { SweepDeps } from './deps';
import { parseFilePath } from './file-path';

export type OrphanDeletionKind = 'pending' | 'record' | 'object';

/** Counts what the sweep deleted (`baas_storage_orphan_sweep_deletions_total`) and when it refused. */
export interface OrphanSweepObserver {
  deleted(kind: OrphanDeletionKind, n: number): void;
  aborted(reason: 'store-unavailable' | 'deletion-cap'): void;
}

export interface OrphanSweepPolicy {
  /** ORPHAN_FILE_GRACE_SECONDS: nothing younger is touched, whatever the janitor sends. */
  graceSeconds: number;
  /** ORPHAN_SWEEP_MAX_DELETIONS: deletions of records and objects per sweep. */
  maxDeletions: number;
  observer?: OrphanSweepObserver;
}

/**
 * The janitor's orphan sweep, in bounded batches, with this service's own cutoff (the janitor's
 * `olderThan`, never later than now minus ORPHAN_FILE_GRACE_SECONDS):
 * 0. the object store itself must answer (the bucket exists): otherwise the sweep aborts, since
 *    a wrong bucket setting would make every object look gone;
 * 1. uploads left `pending` since before the cutoff (the process died mid-upload): object,
 *    record and reservation go;
 * 2. complete records whose object is gone, checked once per grace window per record: the first
 *    sweep that misses the object remembers it, a later one that misses it again deletes the
 *    record (and a sweep that finds it clears the mark);
 * 3. stored objects without any record, older than the cutoff (scanned with a cursor that
 *    persists between calls and wraps around at the end).
 * Deletions of records and objects stop at `maxDeletions` per call, and the reply then says
 * `more: false`, so one janitor sweep deletes at most that many; the rest waits for the next.
 */
export async function sweepOrphans(
  deps: SweepDeps,
  cmd: JanitorCommand,
  policy: OrphanSweepPolicy,
  now: () => Date = () => new Date(),
): Promise<JanitorReply> {
  const olderThan = effectiveCutoff(cmd.olderThan, policy.graceSeconds, now());
  const batch = Math.max(1, Math.min(cmd.batchSize, 1000));
  const observer = policy.observer;
  try {
    await deps.store.ping();
  } catch (e) {
    observer?.aborted('store-unavailable');
    return {
      ok: false,
      processed: 0,
      more: false,
      error: `object store unavailable, sweep aborted: ${(e as Error).message}`,
    };
  }
  let processed = 0;
  let deletions = 0;
  const capped = (): boolean => deletions >= policy.maxDeletions;

  const stale = await deps.files.stalePending(olderThan, batch);
  for (const rec of stale) {
    await deps.store.delete(rec.path);
    await deps.files.remove(rec.projectId, rec.path);
    if (rec.reserved > 0) await deps.quota.release(rec.projectId, rec.reserved);
    observer?.deleted('pending', 1);
    processed++;
  }

  const unverified = await deps.files.unverified(olderThan, batch);
  for (const rec of unverified) {
    if (capped()) break;
    if (await deps.store.exists(rec.path)) {
      await deps.files.markVerified(rec.projectId, rec.path, now());
      continue;
    }
    if (!rec.missingSince) {
      await deps.files.markMissing(rec.projectId, rec.path, now());
      continue;
    }
    await deps.files.remove(rec.projectId, rec.path);
    await deps.quota.release(rec.projectId, rec.size);
    observer?.deleted('record', 1);
    deletions++;
    processed++;
  }

  let listingDone = true;
  if (!capped()) {
    const after = await deps.cursor.get();
    const listing = await deps.store.list({ limit: batch, ...(after ? { startAfter: after } : {}) });
    let last = after;
    for (const o of listing.items) {
      if (capped()) break;
      last = o.key;
      if (o.lastModified >= olderThan) continue;
      const parsed = parseFilePath(o.key);
      if (parsed && (await deps.files.exists(parsed.projectId, parsed.path))) continue;
      await deps.store.delete(o.key);
      observer?.deleted('object', 1);
      deletions++;
      processed++;
    }
    const finished = listing.done && (listing.items.length === 0 || last === listing.items.at(-1)?.key);
    await deps.cursor.set(finished ? undefined : last);
    listingDone = finished;
  }

  if (capped()) {
    observer?.aborted('deletion-cap');
    return { ok: true, processed, more: false };
  }
  const more = stale.length === batch || unverified.length === batch || !listingDone;
  return { ok: true, processed, more };
}
