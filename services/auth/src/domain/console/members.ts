import type { ConsoleRole } from '@baas/common';

/**
 * Whether giving `accountId` the role `next` (null: removing it) would leave a project that has
 * an owner without one. A project without owners (one a platform admin created and staffed with
 * developers, say) has nothing to protect: platform admins manage it.
 */
export function leavesNoOwner(
  members: readonly { accountId: string; role: ConsoleRole }[],
  accountId: string,
  next: ConsoleRole | null,
): boolean {
  const owners = members.filter((m) => m.role === 'owner');
  if (owners.length === 0) return false;
  const remaining = owners.filter((m) => m.accountId !== accountId).length + (next === 'owner' ? 1 : 0);
  return remaining === 0;
}
