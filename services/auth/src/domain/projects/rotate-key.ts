import { createEvent, errors, type KeyType, type ProjectId } from '@baas/common';
import type { ProjectDeps } from './deps';
import { generateApiKey } from './api-keys';

/** Replaces one key of a project; the old one is refused from the moment this returns. */
export async function rotateKey(deps: ProjectDeps, id: ProjectId, type: KeyType, requestId: string) {
  const key = generateApiKey(type);
  const event = createEvent('project.key_rotated', id, { keyType: type }, { requestId });
  const ok = await deps.projects.replaceKey(id, type, key.stored, [event]);
  if (!ok) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  deps.invalidator.projectChanged(id);
  return type === 'secret' ? { secretKey: key.plaintext } : { publishableKey: key.plaintext };
}
