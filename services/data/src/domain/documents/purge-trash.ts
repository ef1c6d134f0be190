import { createEvent, effectiveCutoff, type JanitorCommand, type JanitorReply } from '@baas/common';
import type { DataDeps } from '../../ports';

/**
 * The janitor's command: hard-delete documents trashed before its `olderThan`, across every
 * project, at most `batchSize` per call, each with a `document.purged` event; their quota is
 * released. The cutoff is clamped to now minus this service's own grace period
 * (TRASH_GRACE_PERIOD_SECONDS): a command can ask for less, never for a younger document.
 */
export async function purgeTrash(
  deps: DataDeps,
  cmd: JanitorCommand,
  graceSeconds: number,
  now: Date = new Date(),
): Promise<JanitorReply> {
  const { processed, more } = await deps.documents.purgeTrash(
    effectiveCutoff(cmd.olderThan, graceSeconds, now),
    cmd.batchSize,
    (projectId, collection, id) => [
      createEvent('document.purged', projectId, { collection, documentId: id }),
    ],
  );
  return { ok: true, processed, more };
}
