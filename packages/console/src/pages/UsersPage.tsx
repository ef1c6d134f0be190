import { useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import type { User } from '../api/types';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/Field';
import { CursorPager, TableHead, useCursorPaging } from '../components/Paging';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/** The project's end users: search by email, cursor paging, a user's fields, deletion. */
export function UsersPage({ project, can }: ProjectPageProps) {
  usePageTitle(`Users · ${project.name}`);
  const api = useApi();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const paging = useCursorPaging();
  const { cursor } = paging;
  const [viewing, setViewing] = useState<User | undefined>();
  const [deleting, setDeleting] = useState<User | undefined>();
  const { busy, error, run } = useAction();
  const [status, setStatus] = useState('');

  const page = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/users', {
            params: {
              path: { projectId: project.id },
              query: { limit: '20', cursor, ...(search ? { search } : {}) },
            },
          }),
        )
      ).data,
    [api, project.id, search, cursor],
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSearch(draft.trim());
    paging.reset();
  };

  const remove = async (user: User) => {
    await run(async () => {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}/users/{userId}', {
          params: { path: { projectId: project.id, userId: user._id } },
        }),
      );
      setViewing(undefined);
      setStatus(`User ${user.email} deleted.`);
      page.reload();
    });
    setDeleting(undefined);
  };

  const items = page.data?.items ?? [];
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Users</h1>
      <form className="toolbar" role="search" onSubmit={submit}>
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
      <table className="table">
        <caption className="visually-hidden">Users of {project.name}</caption>
        <TableHead columns={['Email', 'Verified', 'Created']} actions />
        <tbody>
          {items.map((u) => (
            <tr key={u._id}>
              <th scope="row">{u.email}</th>
              <td>{u.emailVerified ? 'yes' : 'no'}</td>
              <td>{formatDate(u.createdAt)}</td>
              <td className="actions">
                <button type="button" onClick={() => setViewing(u)}>
                  View<span className="visually-hidden"> {u.email}</span>
                </button>
                {can.write && (
                  <button type="button" className="danger-text" onClick={() => setDeleting(u)}>
                    Delete<span className="visually-hidden"> {u.email}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
          {items.length === 0 && !page.loading && (
            <tr>
              <td colSpan={4} className="muted">
                {search ? 'No user matches.' : 'No users yet.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <CursorPager paging={paging} nextCursor={page.data?.nextCursor} loading={page.loading} />
      <Dialog
        title={viewing ? viewing.email : 'User'}
        open={viewing !== undefined}
        onClose={() => setViewing(undefined)}
        actions={
          can.write && (
            <button type="button" className="danger" onClick={() => setDeleting(viewing)}>
              Delete this user…
            </button>
          )
        }
      >
        {viewing && <pre className="json-view">{JSON.stringify(viewing, null, 2)}</pre>}
      </Dialog>
      <ConfirmDialog
        title={`Delete ${deleting?.email ?? ''}?`}
        open={deleting !== undefined}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => (deleting ? remove(deleting) : undefined)}
        confirmLabel="Delete the user"
        typeToConfirm={deleting?.email}
        danger
        busy={busy}
      >
        <p>Their sessions end at once; their account and profile are removed.</p>
      </ConfirmDialog>
    </main>
  );
}
