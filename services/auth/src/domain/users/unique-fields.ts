import { errors, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import type { SchemaField } from './users-schema';

export const duplicateProfileValue = (key: string) =>
  errors.duplicateValue(`Duplicate value for ${key}`, [{ path: key, message: 'already taken' }]);

/** The profile fields the users schema declares unique (handed to the repository's writes). */
export function uniqueProfileKeys(fields: SchemaField[]): string[] {
  return fields.filter((f) => f.unique).map((f) => f.key);
}

/**
 * Unique profile fields (e.g. username) are checked by query first, on every store. On MongoDB
 * that is all (FerretDB has no partial indexes, so a unique index cannot skip users without the
 * field), and two signups racing for the same value can both pass; on PostgreSQL the write itself
 * enforces them too (DuplicateProfileValueError). The email has a real unique index on both.
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
      throw duplicateProfileValue(f.key);
  }
}
