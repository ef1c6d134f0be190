import type { JanitorCommand, JanitorReply } from '@baas/common';
import type { SweepDeps } from './deps';
import { parseFilePath } from './file-path';

/**
 * The janitor's orphan sweep, in bounded batches:
 * 1. uploads left `pending` since before `olderThan` (the process died mid-upload): object,
 *    record and reservation go;
 * 2. complete records whose object is gone (checked once per `olderThan` window per record);
 * 3. stored objects without any record, older than `olderThan` (scanned with a cursor that
 *    persists between calls and wraps around at the end).
 * Live uploads are never touched: they are younger than the grace period the janitor passes.
 */
export async function sweepOrphans(
  deps: SweepDeps,
  cmd: JanitorCommand,
  now: () => Date = () => new Date(),
): Promise<JanitorReply> {
  const olderThan = new Date(cmd.olderThan);
  const batch = Math.max(1, Math.min(cmd.batchSize, 1000));
  let processed = 0;

  const stale = await deps.files.stalePending(olderThan, batch);
  for (const rec of stale) {
    await deps.store.delete(rec.path);
    await deps.files.remove(rec.projectId, rec.path);
    if (rec.reserved > 0) await deps.quota.release(rec.projectId, rec.reserved);
    processed++;
  }

  const unverified = await deps.files.unverified(olderThan, batch);
  for (const rec of unverified) {
    if (await deps.store.exists(rec.path)) {
      await deps.files.markVerified(rec.projectId, rec.path, now());
      continue;
    }
    await deps.files.remove(rec.projectId, rec.path);
    await deps.quota.release(rec.projectId, rec.size);
    processed++;
  }

  const after = await deps.cursor.get();
  const listing = await deps.store.list({ limit: batch, ...(after ? { startAfter: after } : {}) });
  for (const o of listing.items) {
    if (o.lastModified >= olderThan) continue;
    const parsed = parseFilePath(o.key);
    if (parsed && (await deps.files.exists(parsed.projectId, parsed.path))) continue;
    await deps.store.delete(o.key);
    processed++;
  }
  await deps.cursor.set(listing.done ? undefined : listing.items.at(-1)?.key);

  const more = stale.length === batch || unverified.length === batch || !listing.done;
  return { ok: true, processed, more };
}
