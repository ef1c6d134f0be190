import { errors, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import type { SchemaField } from './users-schema';

/**
 * Unique profile fields (e.g. username) are checked by query: FerretDB has no partial indexes, so
 * a unique index cannot skip users without the field. Two signups racing for the same value can
 * both pass; the email, the identity that matters, has a real unique index.
 */
export async function assertUniqueProfileFields(
  deps: AuthDeps,
  projectId: ProjectId,
  fields: SchemaField[],
  values: Record<string, unknown>,
  exceptUserId?: string,
): Promise<void> {
  for (const f of fields) {
    const v = values[f.key];
    if (!f.unique || v === undefined || v === null) continue;
    if (await deps.users.findByProfileField(projectId, f.key, v, exceptUserId))
      throw errors.duplicateValue(`Duplicate value for ${f.key}`, [
        { path: f.key, message: 'already taken' },
      ]);
  }
}
