import { DuplicateConsoleEmailError } from '../../ports';
import type { ConsoleDeps } from './deps';
import type { ConsoleAccount } from './account';
import { consoleErrors } from './console-errors';
import { pendingInvitation } from './inspect-invitation';
import { leavesNoOwner } from './members';
import { normalizeEmail } from '../users/user';
import { startConsoleSession, type ClientInfo, type SignedIn } from './start-session';

/**
 * POST /api/console/invitations/accept: the link token proves control of the invited mailbox.
 * Creates the account when no account has that email (a password is required then, 400
 * otherwise), gives it the invited role (an existing membership is set to it), uses the
 * invitation up and signs in. The invitation is used once: a second acceptance, an expired or a
 * cancelled one is 404 INVITATION_NOT_FOUND. For an existing account a password is not needed and
 * not used (it keeps its own).
 */
export async function acceptInvitation(
  deps: ConsoleDeps,
  input: { token: string; password?: string } & ClientInfo,
): Promise<SignedIn> {
  const { invitation } = await pendingInvitation(deps, input.token);
  let account = await deps.accounts.findByEmail(normalizeEmail(invitation.email));
  let created: ConsoleAccount | undefined;
  if (!account) {
    if (input.password === undefined) throw consoleErrors.passwordRequired();
    const now = deps.clock();
    created = {
      id: deps.ids.id(),
      email: invitation.email,
      passwordHash: await deps.hasher.hash(input.password),
      platformAdmin: false,
      createdAt: now,
      updatedAt: now,
    };
  }
  if (!(await deps.members.claimInvitation(invitation.id, deps.clock())))
    throw consoleErrors.invitationNotFound();
  if (created) {
    try {
      await deps.accounts.insert(created);
      account = created;
    } catch (e) {
      // Another request created the account meanwhile: it is the invited person's all the same.
      if (!(e instanceof DuplicateConsoleEmailError)) throw e;
      account = await deps.accounts.findByEmail(normalizeEmail(invitation.email));
      if (!account) throw e;
    }
  }
  if (!account) throw consoleErrors.invitationNotFound(); // unreachable: found or created above
  const accountId = account.id;
  const live = await deps.members.change(invitation.projectId, (members) => {
    if (leavesNoOwner(members, accountId, invitation.role)) throw consoleErrors.lastOwner();
    return { accountId, role: invitation.role, events: [] };
  });
  if (!live) throw consoleErrors.invitationNotFound();
  deps.invalidator.consoleAccountChanged(accountId);
  return startConsoleSession(deps, account, input);
}
