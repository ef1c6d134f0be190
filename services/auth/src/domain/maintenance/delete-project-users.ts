import type { ProjectId } from '@baas/common';
import type {
  CodeClaims,
  ConsoleMemberRepository,
  SessionRepository,
  UserRepository,
  UsersSchemaRepository,
} from '../../ports';

/**
 * On project.deleted: the project's users (with their codes), sessions and users schema go, and
 * any console membership or invitation the deletion request left behind. Idempotent.
 */
export async function deleteProjectUsers(
  deps: {
    users: UserRepository;
    sessions: SessionRepository;
    schemas: UsersSchemaRepository;
    claims: CodeClaims;
    console?: { members: Pick<ConsoleMemberRepository, 'deleteProject'> };
  },
  projectId: ProjectId,
): Promise<void> {
  // Sessions first: from then on no refresh token of the project works, even if the rest fails.
  await deps.sessions.deleteProject(projectId);
  await deps.users.deleteProject(projectId);
  await deps.schemas.deleteProject(projectId);
  await deps.claims.deleteProject(projectId);
  await deps.console?.members.deleteProject(projectId);
}
