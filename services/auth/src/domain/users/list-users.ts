import type { AdminPage, ProjectId } from '@baas/common';
import type { UserRepository } from '../../ports';
import { toPage, type PageRequest } from '../admin/admin-list';
import { normalizeEmail, selfView } from './user';

/**
 * One page of a project's users, newest first, for an operator: what the user sees about
 * themselves (email and verification state included; never the password hash or codes).
 * `search` matches any part of the email, case-insensitively.
 */
export async function listUsers(
  users: UserRepository,
  projectId: ProjectId,
  req: PageRequest & { search?: string },
): Promise<AdminPage<ReturnType<typeof selfView>>> {
  const emailContains = req.search === undefined ? undefined : normalizeEmail(req.search);
  const rows = await users.list(projectId, {
    limit: req.limit + 1,
    before: req.before,
    ...(emailContains ? { emailContains } : {}),
  });
  return toPage(rows, req, selfView);
}
