import type { ProjectId } from '@baas/common';
import type { CodeClaims, SessionRepository, UserRepository, UsersSchemaRepository } from '../../ports';

/** On project.deleted: the project's users (with their codes), sessions and users schema go. Idempotent. */
export async function deleteProjectUsers(
  deps: {
    users: UserRepository;
    sessions: SessionRepository;
    schemas: UsersSchemaRepository;
    claims: CodeClaims;
  },
  projectId: ProjectId,
): Promise<void> {
  // Sessions first: from then on no refresh token of the project works, even if the rest fails.
  await deps.sessions.deleteProject(projectId);
  await deps.users.deleteProject(projectId);
  await deps.schemas.deleteProject(projectId);
  await deps.claims.deleteProject(projectId);
}
