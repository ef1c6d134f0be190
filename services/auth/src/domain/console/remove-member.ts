import { auditEvent, type AuditSource, type ProjectId } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { consoleErrors } from './console-errors';
import { leavesNoOwner } from './members';

/**
 * DELETE /api/admin/projects/:projectId/members/:accountId: the account loses its role here (its
 * sessions see it at once). 409 LAST_OWNER for the project's last owner.
 */
export async function removeMember(
  deps: ConsoleDeps,
  projectId: ProjectId,
  accountId: string,
  source: AuditSource,
): Promise<void> {
  const account = await deps.accounts.findById(accountId);
  if (!account) throw consoleErrors.memberNotFound();
  const live = await deps.members.change(projectId, (members) => {
    const current = members.find((m) => m.accountId === accountId);
    if (!current) throw consoleErrors.memberNotFound();
    if (leavesNoOwner(members, accountId, null)) throw consoleErrors.lastOwner();
    const audit = auditEvent(
      projectId,
      source,
      'member.removed',
      { type: 'member', id: accountId },
      { email: account.email, role: current.role },
    );
    return { accountId, role: null, events: [audit] };
  });
  if (!live) throw consoleErrors.projectNotFound();
  deps.invalidator.consoleAccountChanged(accountId);
}
