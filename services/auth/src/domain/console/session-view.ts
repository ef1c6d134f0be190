import { csrfTokenFor, type ConsoleRole, type ProjectId } from '@baas/common';
import type { ConsoleDeps } from './deps';
import type { ConsoleAccount, ConsoleSessionRecord } from './account';

/** What the console knows about its session: who, where, and the CSRF token to send. */
export interface SessionView {
  account: { id: string; email: string; platformAdmin: boolean };
  memberships: { projectId: string; projectName: string; role: ConsoleRole }[];
  /** Sent back as `x-csrf-token` on every state-changing request made with the cookie. */
  csrfToken: string;
  expiresAt: string;
}

/** The session's view; memberships of projects that are gone meanwhile are left out. */
export async function sessionView(
  deps: Pick<ConsoleDeps, 'members' | 'projects'>,
  account: ConsoleAccount,
  session: ConsoleSessionRecord,
  token: string,
): Promise<SessionView> {
  const memberships = await deps.members.ofAccount(account.id);
  const ids = memberships.map((m) => m.projectId);
  const names = new Map<ProjectId, string>();
  if (ids.length > 0)
    for (const p of await deps.projects.list({ limit: ids.length, ids })) names.set(p.id, p.name);
  return {
    account: { id: account.id, email: account.email, platformAdmin: account.platformAdmin },
    memberships: memberships.flatMap((m) => {
      const projectName = names.get(m.projectId);
      return projectName === undefined ? [] : [{ projectId: m.projectId, projectName, role: m.role }];
    }),
    csrfToken: csrfTokenFor(token),
    expiresAt: session.expiresAt.toISOString(),
  };
}
