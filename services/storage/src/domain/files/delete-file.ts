import { errors } from '@baas/common';
import type { FileDeps } from './deps';
import { assertNoTraversal, parseFilePath } from './file-path';
import { fileEvents, type FileChangeContext } from './file-events';

const notFound = () => errors.notFound('FILE_NOT_FOUND', 'File not found');

/**
 * Permanently deletes a file of the caller's project. Another project's path is simply not
 * found (its file is untouched). The record goes first, atomically and with `file.deleted`, so
 * a concurrent second delete is a 404; the object and the quota follow.
 */
export async function deleteFile(deps: FileDeps, ctx: FileChangeContext, rawPath: string): Promise<void> {
  assertNoTraversal(rawPath);
  const parsed = parseFilePath(rawPath);
  if (!parsed || parsed.projectId !== ctx.projectId) throw notFound();
  const current = await deps.files.findComplete(ctx.projectId, parsed.path);
  if (!current) throw notFound();
  const events = fileEvents(ctx, 'file.deleted', { path: parsed.path, size: current.size });
  const deleted = await deps.files.deleteComplete(ctx.projectId, parsed.path, events);
  if (!deleted) throw notFound();
  // A crash here leaves an object without a record: the orphan sweep removes it.
  await deps.store.delete(parsed.path);
  await deps.quota.release(ctx.projectId, deleted.size);
}
