import type { Request } from 'express';
import { errors, requireAdmin, roleAtLeast, type ConsoleRole, type ProjectId } from '@baas/common';
import type { ConsoleMemberRepository } from '../ports';
import { consoleErrors } from '../domain/console/console-errors';

/*
 * The gateway decides who may call an admin route (the platform admin token, or a console session
 * with the role the route needs) and asserts it. These checks repeat its decision from the
 * assertion and this service's own memberships, so a route-table mistake or a gateway's cached
 * role cannot widen what an account may do here.
 */

/** Platform-wide console administration: the token, or a platform-admin account. */
export function requirePlatformAdmin(req: Request): void {
  requireAdmin(req);
  const account = req.assertion?.account;
  if (account && !account.platformAdmin) throw consoleErrors.platformAdminRequired();
}

/** A project's members: the token, a platform admin, or an account with at least `needed` here. */
export async function requireProjectRole(
  req: Request,
  members: Pick<ConsoleMemberRepository, 'ofAccount'>,
  projectId: ProjectId,
  needed: ConsoleRole,
): Promise<void> {
  requireAdmin(req);
  const account = req.assertion?.account;
  if (!account || account.platformAdmin) return;
  const role = (await members.ofAccount(account.id)).find((m) => m.projectId === projectId)?.role;
  if (!role) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  if (!roleAtLeast(role, needed)) throw consoleErrors.insufficientRole();
}
