import {
  auditEvent,
  createConsoleInvitationEvent,
  type AuditSource,
  type ConsoleRole,
  type ProjectId,
} from '@baas/common';
import type { ConsoleDeps } from './deps';
import { invitationView, type ConsoleInvitation } from './account';
import { consoleErrors } from './console-errors';
import { linkTokenDigest, newConsoleToken } from './tokens';
import { normalizeEmail } from '../users/user';

/**
 * POST /api/admin/projects/:projectId/members: invites an email to the project with a role. The
 * invitation, console.invitation_requested (its link token sealed for the mail service) and the
 * audit entry are written together; a pending invitation of the same email stops working. 409
 * ALREADY_MEMBER when the account with that email already has a role here.
 */
export async function inviteMember(
  deps: ConsoleDeps,
  projectId: ProjectId,
  input: { email: string; role: ConsoleRole },
  source: AuditSource,
) {
  const project = await deps.projects.findById(projectId);
  if (!project) throw consoleErrors.projectNotFound();
  const email = input.email.trim();
  const account = await deps.accounts.findByEmail(normalizeEmail(email));
  if (account && (await deps.members.ofAccount(account.id)).some((m) => m.projectId === projectId))
    throw consoleErrors.alreadyMember();
  const now = deps.clock();
  const token = newConsoleToken();
  const invitedBy = source.actor.type === 'console-account' ? source.actor.id : null;
  const invitation: ConsoleInvitation = {
    id: deps.ids.id(),
    projectId,
    email,
    role: input.role,
    tokenHash: linkTokenDigest('invitation', token),
    invitedBy,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.policy.invitationTtlSeconds * 1000),
  };
  const meta = { requestId: source.requestId };
  const events = [
    createConsoleInvitationEvent(
      deps.mailEnvelopeKey,
      projectId,
      { invitationId: invitation.id, email, projectName: project.name, role: input.role, invitedBy },
      { token },
      meta,
    ),
    auditEvent(
      projectId,
      source,
      'member.invited',
      { type: 'member', id: normalizeEmail(email) },
      { invitationId: invitation.id, role: input.role },
    ),
  ];
  if (!(await deps.members.insertInvitation(invitation, events))) throw consoleErrors.projectNotFound();
  return invitationView(invitation);
}
