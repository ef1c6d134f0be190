import type { ProjectId } from '@baas/common';
import type { FileDeps } from './deps';

const PAGE = 500;

/**
 * On `project.deleted`: every object under the project's prefix, then its records and usage.
 * Idempotent, so a redelivery simply finds less to do. An upload that was still streaming finds
 * its record gone when it tries to complete and removes its own object.
 */
export async function deleteProjectFiles(deps: FileDeps, projectId: ProjectId): Promise<number> {
  let removed = 0;
  for (;;) {
    const { items, done } = await deps.store.list({ prefix: `${projectId}/`, limit: PAGE });
    for (const o of items) await deps.store.delete(o.key);
    removed += items.length;
    if (done || items.length === 0) break;
  }
  await deps.files.deleteAllOfProject(projectId);
  await deps.quota.drop(projectId);
  return removed;
}
