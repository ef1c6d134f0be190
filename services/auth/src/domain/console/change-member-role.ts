import { auditEvent, type AuditSource, type ConsoleRole, type ProjectId } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { memberView } from './account';
import { consoleErrors } from './console-errors';
import { leavesNoOwner } from './members';

/**
 * PATCH /api/admin/projects/:projectId/members/:accountId: sets a member's role. 409 LAST_OWNER
 * when it would demote the project's last owner; decided on the members as they are when the
 * change is written (two owners demoting each other cannot both succeed on PostgreSQL).
 */
export async function changeMemberRole(
  deps: ConsoleDeps,
  projectId: ProjectId,
  accountId: string,
  role: ConsoleRole,
  source: AuditSource,
) {
  const account = await deps.accounts.findById(accountId);
  if (!account) throw consoleErrors.memberNotFound();
  let createdAt: Date | undefined;
  const live = await deps.members.change(projectId, (members) => {
    const current = members.find((m) => m.accountId === accountId);
    if (!current) throw consoleErrors.memberNotFound();
    createdAt = current.createdAt;
    if (current.role === role) return null;
    if (leavesNoOwner(members, accountId, role)) throw consoleErrors.lastOwner();
    const audit = auditEvent(
      projectId,
      source,
      'member.role_changed',
      { type: 'member', id: accountId },
      { email: account.email, from: current.role, to: role },
    );
    return { accountId, role, events: [audit] };
  });
  if (!live) throw consoleErrors.projectNotFound();
  deps.invalidator.consoleAccountChanged(accountId);
  return memberView({ accountId, email: account.email, role, createdAt: createdAt ?? deps.clock() });
}
