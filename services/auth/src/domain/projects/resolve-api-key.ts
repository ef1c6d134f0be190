import { timingSafeEqual } from 'node:crypto';
import type { ProjectId } from '@baas/common';
import type { ProjectDeps } from './deps';
import { effectiveSettings } from './project';

/**
 * What the gateway needs to route a request: looked up by the key's SHA-256 (an exact index
 * match, so no comparison runs over the secret), then the digests compared in constant time.
 */
export async function resolveApiKeyHash(deps: ProjectDeps, keyHash: string) {
  if (!/^[a-f0-9]{64}$/.test(keyHash)) return null;
  const found = await deps.projects.findByKeyHash(keyHash);
  if (!found) return null;
  const stored = Buffer.from(found.project.keys[found.keyType].hash, 'hex');
  if (!timingSafeEqual(stored, Buffer.from(keyHash, 'hex'))) return null;
  return projectRouting(deps, found.project.id, found.project.settings, found.keyType);
}

/** For admin routes addressed by project id (collections, templates, users schema). */
export async function resolveProjectById(deps: ProjectDeps, id: ProjectId) {
  const p = await deps.projects.findById(id);
  return p ? projectRouting(deps, p.id, p.settings, undefined) : null;
}

function projectRouting(
  deps: ProjectDeps,
  projectId: ProjectId,
  settings: Parameters<typeof effectiveSettings>[0],
  keyType: 'publishable' | 'secret' | undefined,
) {
  const eff = effectiveSettings(settings, deps.defaults);
  return {
    projectId,
    keyType: keyType ?? null,
    allowedOrigins: eff.allowedOrigins,
    settings: {
      publicSignups: eff.publicSignups,
      requireEmailVerification: eff.requireEmailVerification,
      limits: eff.limits,
    },
  };
}
