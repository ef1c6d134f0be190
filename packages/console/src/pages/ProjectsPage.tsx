import { useState, type FormEvent } from 'react';
import { useApi, useConsole } from '../api/context';
import { ok } from '../api/client';
import type { NewProject, Project } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableHead } from '../components/Paging';
import { KeysReveal } from '../components/KeysReveal';
import { TextAreaField, TextField } from '../components/Field';
import { roleOn } from '../auth/roles';
import { formatDate, parseOrigins } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { Link, navigate, usePageTitle } from '../router';

const PAGE = '50';

type Page = AdminPage<Project>;
interface AdminPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The projects, newest first, a page at a time ("Load more" fetches the next by cursor); an
 * account that is not a platform admin gets only the projects it has a role on (the gateway
 * narrows the list). The search narrows what is loaded by name or id; a full 24-hex id is
 * looked up directly.
 */
export function ProjectsPage() {
  usePageTitle('Projects');
  const { api, session } = useConsole();
  const fetchPage = async (cursor: string): Promise<Page> =>
    (await ok(api.GET('/api/admin/projects', { params: { query: { limit: PAGE, cursor } } }))).data;
  const first = useLoad(() => fetchPage(''), [api]);
  const [more, setMore] = useState<Page[]>([]);
  const { busy: loadingMore, error: moreError, run: runMore } = useAction();
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState(false);

  const pages = first.data ? [first.data, ...more] : [];
  const items = pages.flatMap((p) => p.items);
  const next = pages.length === 0 ? '' : (pages[pages.length - 1]?.nextCursor ?? null);
  const loading = first.loading || loadingMore;
  const loadMore = async () => {
    if (!next) return;
    await runMore(async () => {
      const page = await fetchPage(next);
      setMore((m) => [...m, page]);
    });
  };

  const term = search.trim().toLowerCase();
  const shown = term
    ? items.filter((p) => p.name.toLowerCase().includes(term) || p.id.includes(term))
    : items;
  const exactId = /^[a-f0-9]{24}$/.test(term) && !items.some((p) => p.id === term) ? term : undefined;
  const platform = session.access.platform;

  return (
    <main id="main" className="page">
      <div className="page-head">
        <h1 tabIndex={-1}>Projects</h1>
        {platform && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create a project
          </button>
        )}
      </div>
      <div className="toolbar" role="search">
        <TextField
          label="Search by name or id"
          type="search"
          inline
          className="grow"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          hint={`Searches the ${items.length} project${items.length === 1 ? '' : 's'} loaded${
            next !== null ? '; load more to search further' : ''
          }.`}
        />
      </div>
      {exactId && (
        <p>
          <Link to={`/projects/${exactId}`}>Open project {exactId}</Link>
        </p>
      )}
      <ErrorNotice error={first.error} />
      <ErrorNotice error={moreError} />
      <table className="table">
        <caption className="visually-hidden">Projects, newest first</caption>
        <TableHead columns={['Name', 'Id', platform ? 'Public signups' : 'Your role', 'Created']} />
        <tbody>
          {shown.map((p) => (
            <tr key={p.id}>
              <th scope="row">
                <Link to={`/projects/${p.id}`}>{p.name}</Link>
              </th>
              <td className="mono">{p.id}</td>
              <td>
                {platform ? (p.settings.publicSignups ? 'on' : 'off') : (roleOn(session.access, p.id) ?? '–')}
              </td>
              <td>{formatDate(p.createdAt)}</td>
            </tr>
          ))}
          {shown.length === 0 && !loading && (
            <tr>
              <td colSpan={4} className="muted">
                {items.length > 0
                  ? 'No loaded project matches.'
                  : platform
                    ? 'No projects yet.'
                    : 'No project yet: a project owner invites you by email.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="pager">
        <span role="status" className="muted">
          {loading ? 'Loading…' : `${shown.length} shown`}
        </span>
        {next !== null && pages.length > 0 && (
          <button type="button" onClick={() => void loadMore()} disabled={loading}>
            Load more
          </button>
        )}
      </div>
      {platform && <CreateProjectDialog open={creating} onClose={() => setCreating(false)} />}
    </main>
  );
}

function CreateProjectDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [publicSignups, setPublicSignups] = useState(true);
  const [verify, setVerify] = useState(false);
  const { busy, error, setError, run } = useAction();
  const [created, setCreated] = useState<NewProject | undefined>();

  const close = () => {
    if (created) navigate(`/projects/${created.id}`);
    setName('');
    setOrigins('');
    setError(undefined);
    setCreated(undefined);
    onClose();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(async () => {
      const project = await ok(
        api.POST('/api/admin/projects', {
          body: {
            name: name.trim(),
            settings: {
              publicSignups,
              requireEmailVerification: verify,
              allowedOrigins: parseOrigins(origins),
            },
          },
        }),
      );
      setCreated(project);
    });
  };

  if (created)
    return (
      <Dialog
        title={`Project ${created.name} created`}
        open={open}
        onClose={close}
        actions={
          <button type="button" className="primary" onClick={close}>
            I have copied the keys: open the project
          </button>
        }
      >
        <p>
          Id <code>{created.id}</code>
        </p>
        <KeysReveal publishableKey={created.publishableKey} secretKey={created.secretKey} />
      </Dialog>
    );
  return (
    <Dialog title="Create a project" open={open} onClose={close}>
      <form onSubmit={(e) => void submit(e)}>
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          autoComplete="off"
        />
        <TextAreaField
          label="Allowed origins (one per line; none: any origin)"
          value={origins}
          onChange={(e) => setOrigins(e.target.value)}
          rows={3}
          placeholder="https://app.example.com"
          spellCheck={false}
        />
        <label className="check">
          <input
            type="checkbox"
            checked={publicSignups}
            onChange={(e) => setPublicSignups(e.target.checked)}
          />
          Public signups
        </label>
        <label className="check">
          <input type="checkbox" checked={verify} onChange={(e) => setVerify(e.target.checked)} />
          Require email verification
        </label>
        <ErrorNotice error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || name.trim() === ''}>
            {busy ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
