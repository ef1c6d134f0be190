import { useState, type FormEvent } from 'react';
import { useConsole } from '../api/context';
import { ok } from '../api/client';
import type { Account } from '../api/types';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/Field';
import { NewPassword } from '../components/NewPassword';
import { CursorPager, TableHead, useCursorPaging } from '../components/Paging';
import { formatDate } from '../lib/format';
import { newPasswordReady } from '../lib/password';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { Link, usePageTitle } from '../router';

type Pending =
  | { kind: 'admin'; account: Account }
  | { kind: 'revoke'; account: Account }
  | { kind: 'delete'; account: Account };

/**
 * Every console account (platform admins only): search by email, create one, make it a platform
 * admin or not, end its sessions, delete it. Project roles are given on each project's Members
 * page (by invitation).
 */
export function AccountsPage() {
  usePageTitle('Accounts');
  const { api, session } = useConsole();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const paging = useCursorPaging();
  const { cursor } = paging;
  const [creating, setCreating] = useState(false);
  const [pending, setPending] = useState<Pending | undefined>();
  const action = useAction();
  const { busy, error } = action;
  const [status, setStatus] = useState('');

  const page = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/console/accounts', {
            params: { query: { limit: '25', cursor, ...(search ? { search } : {}) } },
          }),
        )
      ).data,
    [api, search, cursor],
  );

  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    setSearch(draft.trim());
    paging.reset();
  };

  const run = async () => {
    if (!pending) return;
    const { kind, account } = pending;
    const path = { params: { path: { accountId: account.id } } };
    setStatus('');
    await action.run(async () => {
      if (kind === 'admin') {
        await ok(
          api.PATCH('/api/admin/console/accounts/{accountId}', {
            ...path,
            body: { platformAdmin: !account.platformAdmin },
          }),
        );
        setStatus(
          account.platformAdmin
            ? `${account.email} is no longer a platform admin.`
            : `${account.email} is now a platform admin.`,
        );
      } else if (kind === 'revoke') {
        const revoked = await ok(api.POST('/api/admin/console/accounts/{accountId}/sessions/revoke', path));
        const n = revoked.data.revoked;
        setStatus(`${n} session${n === 1 ? '' : 's'} of ${account.email} ended.`);
      } else {
        await ok(api.DELETE('/api/admin/console/accounts/{accountId}', path));
        setStatus(`The account ${account.email} was deleted.`);
      }
      page.reload();
    });
    setPending(undefined);
  };

  const items = page.data?.items ?? [];
  const me = session.account?.id;
  const who = pending?.account.email ?? '';
  return (
    <main id="main" className="page">
      <div className="page-head">
        <h1 tabIndex={-1}>Accounts</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create an account
        </button>
      </div>
      <p className="help">
        Console accounts. Platform admins reach every project and this page; the others reach the projects
        they are members of, with a role given on the project&apos;s Members page.
      </p>
      <form className="toolbar" role="search" onSubmit={submitSearch}>
        <TextField
          label="Email contains"
          type="search"
          inline
          className="grow"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ErrorNotice error={page.error} />
      <ErrorNotice error={error} />
      <p role="status" className="status">
        {status}
      </p>
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Console accounts</caption>
          <TableHead columns={['Email', 'Platform admin', 'Projects', 'Created']} actions />
          <tbody>
            {items.map((a) => (
              <tr key={a.id}>
                <th scope="row">
                  {a.email}
                  {a.id === me && <span className="badge">you</span>}
                </th>
                <td>{a.platformAdmin ? <span className="badge ok">yes</span> : 'no'}</td>
                <td>
                  {a.memberships.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    <ul className="plain-list">
                      {a.memberships.map((m) => (
                        <li key={m.projectId}>
                          <Link to={`/projects/${m.projectId}`} className="mono">
                            {m.projectId}
                          </Link>{' '}
                          {m.role}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>{formatDate(a.createdAt)}</td>
                <td className="actions">
                  <button type="button" onClick={() => setPending({ kind: 'admin', account: a })}>
                    {a.platformAdmin ? 'Revoke platform admin' : 'Make platform admin'}
                    <span className="visually-hidden"> {a.email}</span>
                  </button>
                  <button type="button" onClick={() => setPending({ kind: 'revoke', account: a })}>
                    End sessions<span className="visually-hidden"> of {a.email}</span>
                  </button>
                  <button
                    type="button"
                    className="danger-text"
                    onClick={() => setPending({ kind: 'delete', account: a })}
                  >
                    Delete<span className="visually-hidden"> {a.email}</span>
                  </button>
                </td>
              </tr>
            ))}
            {items.length === 0 && !page.loading && (
              <tr>
                <td colSpan={5} className="muted">
                  {search ? 'No account matches.' : 'No accounts yet.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <CursorPager paging={paging} nextCursor={page.data?.nextCursor} loading={page.loading} />

      {creating && (
        <CreateAccountDialog
          onClose={(created) => {
            setCreating(false);
            if (created) {
              setStatus(`The account ${created.email} was created.`);
              page.reload();
            }
          }}
        />
      )}
      <ConfirmDialog
        title={
          pending?.account.platformAdmin
            ? `Revoke platform admin of ${who}?`
            : `Make ${who} a platform admin?`
        }
        open={pending?.kind === 'admin'}
        onCancel={() => setPending(undefined)}
        onConfirm={run}
        confirmLabel={pending?.account.platformAdmin ? 'Revoke platform admin' : 'Make platform admin'}
        danger={!pending?.account.platformAdmin}
        busy={busy}
      >
        <p>
          {pending?.account.platformAdmin
            ? 'From the next request on, the account reaches only the projects it is a member of.'
            : 'The account reaches every project, every account and the platform settings, as the platform admin token does.'}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title={`End every session of ${who}?`}
        open={pending?.kind === 'revoke'}
        onCancel={() => setPending(undefined)}
        onConfirm={run}
        confirmLabel="End the sessions"
        danger
        busy={busy}
      >
        <p>Every browser signed in as {who} is signed out at its next request.</p>
      </ConfirmDialog>
      <ConfirmDialog
        title={`Delete the account ${who}?`}
        open={pending?.kind === 'delete'}
        onCancel={() => setPending(undefined)}
        onConfirm={run}
        confirmLabel="Delete the account"
        typeToConfirm={who}
        danger
        busy={busy}
      >
        <p>Its sessions end and its project roles go with it. What it did stays in the audit logs.</p>
      </ConfirmDialog>
    </main>
  );
}

function CreateAccountDialog({ onClose }: { onClose: (created?: Account) => void }) {
  const { api } = useConsole();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [platformAdmin, setPlatformAdmin] = useState(false);
  const { busy, error, run } = useAction();
  const ready = email.trim() !== '' && newPasswordReady(password, repeat);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    await run(async () => {
      const created = await ok(
        api.POST('/api/admin/console/accounts', { body: { email: email.trim(), password, platformAdmin } }),
      );
      onClose(created.data);
    });
  };

  return (
    <Dialog title="Create an account" open onClose={() => onClose()}>
      <form onSubmit={(e) => void submit(e)}>
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          required
        />
        <NewPassword
          label="Password"
          password={password}
          repeat={repeat}
          onChange={(a, b) => {
            setPassword(a);
            setRepeat(b);
          }}
        />
        <label className="check">
          <input
            type="checkbox"
            checked={platformAdmin}
            onChange={(e) => setPlatformAdmin(e.target.checked)}
          />
          Platform admin (every project, every account)
        </label>
        <p className="help">
          To give someone a role on a project instead, invite them from the project&apos;s Members page: they
          choose their own password.
        </p>
        <ErrorNotice error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={() => onClose()}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || !ready}>
            {busy ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
