import { useState, type FormEvent } from 'react';
import { useConsole } from '../api/context';
import { ok } from '../api/client';
import type { Member, PendingInvitation } from '../api/types';
import { ROLE_LABELS, ROLES, type Role } from '../auth/roles';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../components/Field';
import { TableHead } from '../components/Paging';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

const ROLE_OPTIONS = ROLES.map((r) => [r, ROLE_LABELS[r]] as const);

/**
 * The people who reach the project in the console, and the invitations not yet accepted.
 * Owners (and platform admins) invite by email, change roles, remove members and cancel
 * invitations; everyone else sees the list.
 */
export function MembersPage({ project, can }: ProjectPageProps) {
  usePageTitle(`Members · ${project.name}`);
  const { api, session } = useConsole();
  const projectId = project.id;
  const list = useLoad(
    async () =>
      (await ok(api.GET('/api/admin/projects/{projectId}/members', { params: { path: { projectId } } })))
        .data,
    [api, projectId],
  );
  const [status, setStatus] = useState('');
  const { busy, error, setError, run } = useAction();
  const [changing, setChanging] = useState<Member | undefined>();
  const [removing, setRemoving] = useState<Member | undefined>();
  const [cancelling, setCancelling] = useState<PendingInvitation | undefined>();

  /** Runs one change; the list reloads after it, whatever the outcome. */
  const act = async (work: () => Promise<string>) => {
    setStatus('');
    await run(async () => setStatus(await work()));
    setChanging(undefined);
    setRemoving(undefined);
    setCancelling(undefined);
    list.reload();
  };

  const changeRole = (m: Member, role: Role) =>
    act(async () => {
      await ok(
        api.PATCH('/api/admin/projects/{projectId}/members/{accountId}', {
          params: { path: { projectId, accountId: m.accountId } },
          body: { role },
        }),
      );
      return `${m.email} is now ${role}.`;
    });
  const remove = (m: Member) =>
    act(async () => {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}/members/{accountId}', {
          params: { path: { projectId, accountId: m.accountId } },
        }),
      );
      return `${m.email} was removed from ${project.name}.`;
    });
  const cancel = (i: PendingInvitation) =>
    act(async () => {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}/members/invitations/{invitationId}', {
          params: { path: { projectId, invitationId: i.id } },
        }),
      );
      return `The invitation of ${i.email} was cancelled.`;
    });

  const members = list.data?.members ?? [];
  const invitations = list.data?.invitations ?? [];
  const me = session.account?.id;
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Members</h1>
      <p className="help">
        People with a console account who reach {project.name}. Viewers read; developers also change data,
        schemas, users and files; owners also change settings, rotate keys, manage members and delete the
        project. Platform admins reach every project.
      </p>
      {can.manage && (
        <InviteForm
          projectId={projectId}
          onInvited={(email) => {
            setError(undefined);
            setStatus(`An invitation was sent to ${email}.`);
            list.reload();
          }}
        />
      )}
      <ErrorNotice error={list.error} />
      <ErrorNotice error={error} />
      <p role="status" className="status">
        {status}
      </p>
      <table className="table">
        <caption className="visually-hidden">Members of {project.name}</caption>
        <TableHead columns={['Email', 'Role', 'Member since']} actions={can.manage} />
        <tbody>
          {members.map((m) => (
            <tr key={m.accountId}>
              <th scope="row">
                {m.email}
                {m.accountId === me && <span className="badge">you</span>}
              </th>
              <td>{m.role}</td>
              <td>{formatDate(m.createdAt)}</td>
              {can.manage && (
                <td className="actions">
                  <button type="button" onClick={() => setChanging(m)}>
                    Change role<span className="visually-hidden"> of {m.email}</span>
                  </button>
                  <button type="button" className="danger-text" onClick={() => setRemoving(m)}>
                    Remove<span className="visually-hidden"> {m.email}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
          {members.length === 0 && !list.loading && (
            <tr>
              <td colSpan={can.manage ? 4 : 3} className="muted">
                No members yet: platform admins reach the project anyway.
              </td>
            </tr>
          )}
        </tbody>
      </table>

      <h2>Pending invitations</h2>
      {invitations.length === 0 ? (
        <p className="muted">{list.loading ? 'Loading…' : 'None.'}</p>
      ) : (
        <table className="table">
          <caption className="visually-hidden">Invitations to {project.name} not yet accepted</caption>
          <TableHead columns={['Email', 'Role', 'Invited', 'Expires']} actions={can.manage} />
          <tbody>
            {invitations.map((i) => (
              <tr key={i.id}>
                <th scope="row">{i.email}</th>
                <td>{i.role}</td>
                <td>{formatDate(i.createdAt)}</td>
                <td>{formatDate(i.expiresAt)}</td>
                {can.manage && (
                  <td className="actions">
                    <button type="button" onClick={() => setCancelling(i)}>
                      Cancel the invitation<span className="visually-hidden"> of {i.email}</span>
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {changing && (
        <ChangeRoleDialog
          member={changing}
          busy={busy}
          onCancel={() => setChanging(undefined)}
          onSave={(role) => void changeRole(changing, role)}
        />
      )}
      <ConfirmDialog
        title={`Remove ${removing?.email ?? ''}?`}
        open={removing !== undefined}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => (removing ? remove(removing) : undefined)}
        confirmLabel="Remove the member"
        danger
        busy={busy}
      >
        <p>
          They no longer reach <strong>{project.name}</strong> in the console (their account stays). The last
          owner cannot be removed.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title={`Cancel the invitation of ${cancelling?.email ?? ''}?`}
        open={cancelling !== undefined}
        onCancel={() => setCancelling(undefined)}
        onConfirm={() => (cancelling ? cancel(cancelling) : undefined)}
        confirmLabel="Cancel the invitation"
        danger
        busy={busy}
      >
        <p>The link in the invitation mail stops working.</p>
      </ConfirmDialog>
    </main>
  );
}

function InviteForm({ projectId, onInvited }: { projectId: string; onInvited: (email: string) => void }) {
  const { api } = useConsole();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const { busy, error, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      const invited = await ok(
        api.POST('/api/admin/projects/{projectId}/members', {
          params: { path: { projectId } },
          body: { email: email.trim(), role },
        }),
      );
      setEmail('');
      onInvited(invited.data.email);
    });
  };

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Invite a member">
      <fieldset>
        <legend>Invite someone</legend>
        <div className="toolbar">
          <TextField
            label="Email"
            type="email"
            inline
            className="grow"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            required
          />
          <SelectField
            label="Role"
            inline
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
            options={ROLE_OPTIONS}
          />
          <button type="submit" className="primary" disabled={busy || email.trim() === ''}>
            {busy ? 'Sending…' : 'Send the invitation'}
          </button>
        </div>
        <p className="help">
          They get a mail with a link valid for 7 days; a new address chooses a password there.
        </p>
        <ErrorNotice error={error} />
      </fieldset>
    </form>
  );
}

function ChangeRoleDialog(p: {
  member: Member;
  busy: boolean;
  onCancel: () => void;
  onSave: (role: Role) => void;
}) {
  const [role, setRole] = useState<Role>(p.member.role);
  return (
    <Dialog
      title={`Role of ${p.member.email}`}
      open
      onClose={p.onCancel}
      actions={
        <>
          <button type="button" onClick={p.onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={p.busy || role === p.member.role}
            onClick={() => p.onSave(role)}
          >
            {p.busy ? 'Saving…' : 'Save the role'}
          </button>
        </>
      }
    >
      <SelectField
        label="Role"
        value={role}
        onChange={(e) => setRole(e.target.value as Role)}
        options={ROLE_OPTIONS}
      />
      <p className="help">The project&apos;s last owner keeps the owner role.</p>
    </Dialog>
  );
}
