import { Router, type Request } from 'express';
import { adminProjectContext, auditSource, jsonBody, parseInput } from '@baas/common';
import type { ConsoleDeps } from '../domain/console/deps';
import { consoleErrors } from '../domain/console/console-errors';
import { listMembers } from '../domain/console/list-members';
import { inviteMember } from '../domain/console/invite-member';
import { changeMemberRole } from '../domain/console/change-member-role';
import { removeMember } from '../domain/console/remove-member';
import { cancelInvitation } from '../domain/console/cancel-invitation';
import { inviteMemberSchema, memberRoleSchema } from './console.schemas';
import { requireProjectRole } from './console-access';

const HEX_ID = /^[a-f0-9]{24}$/;

/** A path parameter (express types one after a per-route middleware loosely). */
function param(req: Request, name: string): string {
  const v: unknown = (req.params as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : '';
}

/**
 * A project's console members and invitations, `/api/admin/projects/:projectId/members*`
 * (gateway: admin-project; reading needs viewer, everything else owner):
 * - GET    .../members                                  members and pending invitations;
 * - POST   .../members {email, role}                    invite (mails a link);
 * - PATCH  .../members/:accountId {role}                change a member's role;
 * - DELETE .../members/:accountId                       remove a member;
 * - DELETE .../members/invitations/:invitationId        cancel an invitation.
 */
export function adminMemberRoutes(deps: ConsoleDeps): Router {
  const r = Router();
  // Per route, not for the router: other routers under /api/admin/projects parse their own bodies.
  const body = jsonBody('16kb');
  r.get('/:projectId/members', async (req, res) => {
    const { projectId } = adminProjectContext(req, param(req, 'projectId'));
    await requireProjectRole(req, deps.members, projectId, 'viewer');
    res.json({ success: true, data: await listMembers(deps, projectId), message: 'Members' });
  });
  r.post('/:projectId/members', body, async (req, res) => {
    const { projectId } = adminProjectContext(req, param(req, 'projectId'));
    await requireProjectRole(req, deps.members, projectId, 'owner');
    const input = parseInput(inviteMemberSchema, req.body);
    const data = await inviteMember(deps, projectId, input, auditSource(req));
    res.status(201).json({ success: true, data, message: 'Invitation sent' });
  });
  r.delete('/:projectId/members/invitations/:invitationId', async (req, res) => {
    const { projectId } = adminProjectContext(req, param(req, 'projectId'));
    await requireProjectRole(req, deps.members, projectId, 'owner');
    const id = param(req, 'invitationId');
    if (!HEX_ID.test(id)) throw consoleErrors.invitationNotFound();
    await cancelInvitation(deps, projectId, id);
    res.json({ success: true, data: { id }, message: 'Invitation cancelled' });
  });
  r.patch('/:projectId/members/:accountId', body, async (req, res) => {
    const { projectId } = adminProjectContext(req, param(req, 'projectId'));
    await requireProjectRole(req, deps.members, projectId, 'owner');
    const accountId = param(req, 'accountId');
    if (!HEX_ID.test(accountId)) throw consoleErrors.memberNotFound();
    const { role } = parseInput(memberRoleSchema, req.body);
    const data = await changeMemberRole(deps, projectId, accountId, role, auditSource(req));
    res.json({ success: true, data, message: 'Role changed' });
  });
  r.delete('/:projectId/members/:accountId', async (req, res) => {
    const { projectId } = adminProjectContext(req, param(req, 'projectId'));
    await requireProjectRole(req, deps.members, projectId, 'owner');
    const accountId = param(req, 'accountId');
    if (!HEX_ID.test(accountId)) throw consoleErrors.memberNotFound();
    await removeMember(deps, projectId, accountId, auditSource(req));
    res.json({ success: true, data: { accountId }, message: 'Member removed' });
  });
  return r;
}
