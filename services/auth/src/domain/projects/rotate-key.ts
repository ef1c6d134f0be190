import {
  auditEvent,
  createEvent,
  errors,
  type AuditSource,
  type KeyType,
  type ProjectId,
} from '@baas/common';
import type { ProjectDeps } from './deps';
import { generateApiKey } from './api-keys';

/** Replaces one key of a project; the old one is refused from the moment this returns. */
export async function rotateKey(deps: ProjectDeps, id: ProjectId, type: KeyType, source: AuditSource) {
  const key = generateApiKey(type);
  const event = createEvent('project.key_rotated', id, { keyType: type }, { requestId: source.requestId });
  // The target names the key by its type and the new key's public prefix, never the key.
  const audit = auditEvent(
    id,
    source,
    'project.key_rotated',
    { type: 'api-key', id: `${id}:${type}` },
    { keyType: type, prefix: key.stored.prefix },
  );
  const ok = await deps.projects.replaceKey(id, type, key.stored, [event, audit]);
  if (!ok) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  deps.invalidator.projectChanged(id);
  return type === 'secret' ? { secretKey: key.plaintext } : { publishableKey: key.plaintext };
}
