import { useApi } from '../api/context';
import { ok } from '../api/client';
import { ErrorNotice } from '../components/ErrorNotice';
import { UsageMeter } from '../components/Meter';
import { formatBytes, formatDate } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { Link, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

const count = (n: number) => n.toLocaleString();

/** A project at a glance: its id and keys, and its usage against its limits. */
export function ProjectOverview({ project }: ProjectPageProps) {
  usePageTitle(project.name);
  const api = useApi();
  const usage = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/usage', { params: { path: { projectId: project.id } } }),
        )
      ).data,
    [api, project.id],
  );
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>{project.name}</h1>
      <dl className="facts">
        <dt>Id</dt>
        <dd className="mono">{project.id}</dd>
        <dt>Publishable key</dt>
        <dd>
          <span className="mono">{project.keys.publishable.prefix}…</span> since{' '}
          {formatDate(project.keys.publishable.createdAt)}
        </dd>
        <dt>Secret key</dt>
        <dd>
          <span className="mono">{project.keys.secret.prefix}…</span> since{' '}
          {formatDate(project.keys.secret.createdAt)}
        </dd>
        <dt>Created</dt>
        <dd>{formatDate(project.createdAt)}</dd>
      </dl>
      <section aria-labelledby="usage-title">
        <div className="section-head">
          <h2 id="usage-title">Usage</h2>
          <button type="button" onClick={usage.reload} disabled={usage.loading}>
            Refresh
          </button>
        </div>
        <ErrorNotice error={usage.error} />
        {usage.data && (
          <div className="usage-grid">
            <UsageMeter
              label="Documents (trash included)"
              used={usage.data.documents.count}
              limit={usage.data.documents.limit}
              format={count}
            />
            <UsageMeter
              label="Storage"
              used={usage.data.storage.bytes}
              limit={usage.data.storage.limit}
              format={formatBytes}
            />
            <UsageMeter
              label={`Mails sent in ${usage.data.mail.month}`}
              used={usage.data.mail.sent}
              limit={usage.data.mail.limit}
              format={count}
            />
          </div>
        )}
        {!usage.data && usage.loading && <p role="status">Loading…</p>}
        <p className="help">
          Limits are set in <Link to={`/projects/${project.id}/settings`}>Settings</Link>.
        </p>
      </section>
    </main>
  );
}
