import { createEvent, errors, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from './auth-errors';
import { RESERVED_FIELDS, type User } from './user';
import { unsafeKeys, validateProfile } from './users-schema';
import { DuplicateProfileValueError } from '../../ports';
import { assertUniqueProfileFields, duplicateProfileValue, uniqueProfileKeys } from './unique-fields';

/**
 * Changes profile fields only. Any server-owned field in the body (password, email,
 * emailVerified, _id, roles, timestamps...) fails the whole request with 400, nothing written.
 * `null` clears a field (refused for a required one). Keys starting with `$` are dropped first
 * (the spec's top-level sanitizing).
 */
export async function updateProfile(
  deps: AuthDeps,
  projectId: ProjectId,
  user: User,
  body: Record<string, unknown>,
  requestId: string,
): Promise<User> {
  const changes = Object.fromEntries(Object.entries(body).filter(([k]) => !k.startsWith('$')));
  const forbidden = Object.keys(changes).filter((k) => RESERVED_FIELDS.has(k));
  if (forbidden.length > 0) throw authErrors.fieldNotEditable(forbidden);
  if (Object.keys(changes).length === 0) throw errors.validation('No profile fields to update');
  const unsafe = unsafeKeys(changes);
  if (unsafe.length > 0) throw errors.validation('Invalid field names', unsafe);
  const fields = (await deps.schemas.get(projectId)) ?? [];
  const problems = validateProfile(fields, changes, 'present');
  if (problems.length > 0) throw errors.validation('Validation failed', problems);
  await assertUniqueProfileFields(deps, projectId, fields, changes, user.id);

  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) unset.push(k);
    else set[k] = v;
  }
  const event = createEvent(
    'user.updated',
    projectId,
    { userId: user.id, changed: Object.keys(changes) },
    { requestId },
  );
  let updated: User | null;
  try {
    updated = await deps.users.updateProfile(
      projectId,
      user.id,
      set,
      unset,
      [event],
      uniqueProfileKeys(fields),
    );
  } catch (e) {
    if (e instanceof DuplicateProfileValueError) throw duplicateProfileValue(e.key);
    throw e;
  }
  if (!updated) throw authErrors.invalidToken('Session has ended');
  return updated;
}
