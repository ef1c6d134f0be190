import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { authErrors } from './auth-errors';
import { publicView } from './user';

/** The public-safe view of the user with this username (no email, password or verification state). */
export async function publicProfile(deps: AuthDeps, projectId: ProjectId, username: string) {
  const user = await deps.users.findByProfileField(projectId, 'username', username);
  if (!user) throw authErrors.userNotFound();
  return publicView(user);
}
