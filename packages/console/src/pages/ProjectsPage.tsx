import { useEffect, useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import type { NewProject, Project } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableHead } from '../components/Paging';
import { KeysReveal } from '../components/KeysReveal';
import { formatDate, parseOrigins } from '../lib/format';
import { Link, navigate, usePageTitle } from '../router';

const PAGE = '50';

/**
 * The projects, newest first, a page at a time ("Load more" fetches the next by cursor). The
 * search narrows what is loaded by name or id; a full 24-hex id is looked up directly.
 */
export function ProjectsPage() {
  usePageTitle('Projects');
  const api = useApi();
  const id = useId();
  const [items, setItems] = useState<Project[]>([]);
  const [next, setNext] = useState<string | null>('');
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState(false);

  const load = async (cursor: string, replace: boolean) => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await ok(api.GET('/api/admin/projects', { params: { query: { limit: PAGE, cursor } } }));
      setItems((old) => (replace ? page.data.items : [...old, ...page.data.items]));
      setNext(page.data.nextCursor);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load('', true);
    // The first page once; later pages on request.
  }, []);

  const term = search.trim().toLowerCase();
  const shown = term
    ? items.filter((p) => p.name.toLowerCase().includes(term) || p.id.includes(term))
    : items;
  const exactId = /^[a-f0-9]{24}$/.test(term) && !items.some((p) => p.id === term) ? term : undefined;

  return (
    <main id="main" className="page">
      <div className="page-head">
        <h1 tabIndex={-1}>Projects</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create a project
        </button>
      </div>
      <div className="toolbar" role="search">
        <div className="field inline grow">
          <label htmlFor={`${id}-search`}>Search by name or id</label>
          <input
            id={`${id}-search`}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            aria-describedby={`${id}-search-help`}
          />
        </div>
        <p className="help" id={`${id}-search-help`}>
          Searches the {items.length} project{items.length === 1 ? '' : 's'} loaded
          {next !== null ? '; load more to search further' : ''}.
        </p>
      </div>
      {exactId && (
        <p>
          <Link to={`/projects/${exactId}`}>Open project {exactId}</Link>
        </p>
      )}
      <ErrorNotice error={error} />
      <table className="table">
        <caption className="visually-hidden">Projects, newest first</caption>
        <TableHead columns={['Name', 'Id', 'Public signups', 'Created']} />
        <tbody>
          {shown.map((p) => (
            <tr key={p.id}>
              <th scope="row">
                <Link to={`/projects/${p.id}`}>{p.name}</Link>
              </th>
              <td className="mono">{p.id}</td>
              <td>{p.settings.publicSignups ? 'on' : 'off'}</td>
              <td>{formatDate(p.createdAt)}</td>
            </tr>
          ))}
          {shown.length === 0 && !loading && (
            <tr>
              <td colSpan={4} className="muted">
                {items.length === 0 ? 'No projects yet.' : 'No loaded project matches.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="pager">
        <span role="status" className="muted">
          {loading ? 'Loading…' : `${shown.length} shown`}
        </span>
        {next !== null && (
          <button type="button" onClick={() => void load(next, false)} disabled={loading}>
            Load more
          </button>
        )}
      </div>
      <CreateProjectDialog open={creating} onClose={() => setCreating(false)} />
    </main>
  );
}

function CreateProjectDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const api = useApi();
  const id = useId();
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [publicSignups, setPublicSignups] = useState(true);
  const [verify, setVerify] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
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
    setBusy(true);
    setError(undefined);
    try {
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
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
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
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
            autoComplete="off"
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-origins`}>Allowed origins (one per line; none: any origin)</label>
          <textarea
            id={`${id}-origins`}
            value={origins}
            onChange={(e) => setOrigins(e.target.value)}
            rows={3}
            placeholder="https://app.example.com"
            spellCheck={false}
          />
        </div>
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
