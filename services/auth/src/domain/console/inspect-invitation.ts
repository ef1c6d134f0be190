import type { ConsoleRole } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { invitationPending, type ConsoleInvitation } from './account';
import { consoleErrors } from './console-errors';
import { linkTokenDigest } from './tokens';
import { normalizeEmail } from '../users/user';
import type { Project } from '../projects/project';

/** A pending invitation of the token and its live project; 404 INVITATION_NOT_FOUND otherwise. */
export async function pendingInvitation(
  deps: Pick<ConsoleDeps, 'members' | 'projects' | 'clock'>,
  token: string,
): Promise<{ invitation: ConsoleInvitation; project: Project }> {
  const invitation = await deps.members.findInvitation(linkTokenDigest('invitation', token));
  if (!invitation || !invitationPending(invitation, deps.clock())) throw consoleErrors.invitationNotFound();
  const project = await deps.projects.findById(invitation.projectId);
  if (!project) throw consoleErrors.invitationNotFound();
  return { invitation, project };
}

export interface InvitationInfo {
  email: string;
  projectId: string;
  projectName: string;
  role: ConsoleRole;
  /** Whether accepting signs in to an existing account (no password needed) or creates one. */
  accountExists: boolean;
  expiresAt: string;
}

/** POST /api/console/invitations/inspect: what accepting the invitation would do. */
export async function inspectInvitation(deps: ConsoleDeps, token: string): Promise<InvitationInfo> {
  const { invitation, project } = await pendingInvitation(deps, token);
  const account = await deps.accounts.findByEmail(normalizeEmail(invitation.email));
  return {
    email: invitation.email,
    projectId: project.id,
    projectName: project.name,
    role: invitation.role,
    accountExists: account !== null,
    expiresAt: invitation.expiresAt.toISOString(),
  };
}
