import { useApi } from '../api/context';
import { ok } from '../api/client';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableHead } from '../components/Paging';
import { formatDate } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { Link, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/** The registered collections, their schema size and row-level security. */
export function CollectionsPage({ project, can }: ProjectPageProps) {
  usePageTitle(`Collections · ${project.name}`);
  const api = useApi();
  const list = useLoad(
    () =>
      ok(
        api.GET('/api/admin/projects/{projectId}/collections', {
          params: { path: { projectId: project.id } },
        }),
      ),
    [api, project.id],
  );
  const base = `/projects/${project.id}/collections`;
  return (
    <main id="main" className="page">
      <div className="page-head">
        <h1 tabIndex={-1}>Collections</h1>
        {can.write && (
          <Link className="button primary" to={`${base}/new`}>
            Register a collection
          </Link>
        )}
      </div>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data && <p role="status">Loading…</p>}
      {list.data && (
        <table className="table">
          <caption className="visually-hidden">Collections of {project.name}</caption>
          <TableHead columns={['Name', 'Fields', 'Row-level security', 'Updated']} actions />
          <tbody>
            {list.data.map((c) => (
              <tr key={c.name}>
                <th scope="row">
                  <Link to={`${base}/${encodeURIComponent(c.name)}/documents`}>{c.name}</Link>
                </th>
                <td>{c.schema ? c.schema.fields.length : 'no schema'}</td>
                <td>
                  {c.rls.enabled ? (
                    <span className="badge ok">
                      on: {c.rls.mode}, owner <code>{c.rls.ownerField}</code>
                    </span>
                  ) : (
                    <span className="badge">off</span>
                  )}
                </td>
                <td>{formatDate(c.updatedAt)}</td>
                <td className="actions">
                  <Link to={`${base}/${encodeURIComponent(c.name)}/documents`}>
                    Documents<span className="visually-hidden"> of {c.name}</span>
                  </Link>
                  <Link to={`${base}/${encodeURIComponent(c.name)}`}>
                    {can.write ? 'Schema and RLS' : 'Schema'}
                    <span className="visually-hidden"> of {c.name}</span>
                  </Link>
                </td>
              </tr>
            ))}
            {list.data.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  No collection yet: documents go only to registered collections.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </main>
  );
}
