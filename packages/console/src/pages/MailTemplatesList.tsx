import { useMemo, useState } from 'react';
import { useApi } from '../api/context';
import { mailTemplatesApi, type MailOwner, type MailTemplate } from '../api/mail';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableHead } from '../components/Paging';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { Link } from '../router';

const bodyKind = (t: MailTemplate) =>
  [t.mjml !== null ? 'MJML' : t.html !== null ? 'HTML' : undefined, t.text !== null ? 'text' : undefined]
    .filter(Boolean)
    .join(' + ');

/**
 * One owner's templates (a project's overrides or the global ones): key, name, subject, parts,
 * last change; each opens the editor (`${base}/templates/<key>`); deletion asks first.
 */
export function MailTemplatesList({
  owner,
  base,
  canWrite,
  caption,
}: {
  owner: MailOwner;
  /** The path the editor's paths are under (`/projects/<id>/mail`, `/mail-templates`). */
  base: string;
  canWrite: boolean;
  caption: string;
}) {
  const api = useApi();
  const projectId = owner.scope === 'project' ? owner.projectId : undefined;
  const templates = useMemo(
    () =>
      mailTemplatesApi(api, projectId === undefined ? { scope: 'global' } : { scope: 'project', projectId }),
    [api, projectId],
  );
  const list = useLoad(() => templates.list(), [templates]);
  const [deleting, setDeleting] = useState<MailTemplate | undefined>();
  const { busy, error, run } = useAction();
  const [status, setStatus] = useState('');

  const remove = async (t: MailTemplate) => {
    await run(async () => {
      await templates.remove(t.key);
      setStatus(`Deleted the template ${t.key}.`);
      list.reload();
    });
    setDeleting(undefined);
  };

  const items = [...(list.data ?? [])].sort((a, b) => a.key.localeCompare(b.key));
  return (
    <>
      {canWrite && (
        <p>
          <Link to={`${base}/templates/new`} className="button primary">
            New template
          </Link>
        </p>
      )}
      <ErrorNotice error={list.error} />
      <ErrorNotice error={error} />
      <p role="status" className="status">
        {status}
      </p>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <TableHead columns={['Key', 'Name', 'Subject', 'Parts', 'Updated']} actions={canWrite} />
        <tbody>
          {items.map((t) => (
            <tr key={t.key}>
              <th scope="row">
                <Link to={`${base}/templates/${encodeURIComponent(t.key)}`} className="mono">
                  {t.key}
                </Link>
              </th>
              <td>{t.name}</td>
              <td>{t.subject}</td>
              <td>{bodyKind(t)}</td>
              <td>{formatDate(t.updatedAt)}</td>
              {canWrite && (
                <td className="actions">
                  <button type="button" className="danger-text" onClick={() => setDeleting(t)}>
                    Delete<span className="visually-hidden"> the template {t.key}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
          {items.length === 0 && !list.loading && (
            <tr>
              <td colSpan={canWrite ? 6 : 5} className="muted">
                No template yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {list.loading && (
        <p role="status" className="muted">
          Loading…
        </p>
      )}
      <ConfirmDialog
        title={`Delete the template ${deleting?.key ?? ''}?`}
        open={deleting !== undefined}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => (deleting ? remove(deleting) : undefined)}
        confirmLabel="Delete the template"
        danger
        busy={busy}
      >
        <p>
          {owner.scope === 'project'
            ? 'Mail sent with this key then uses the global template of that key, if there is one.'
            : 'Projects without a template of their own for this key then use the built-in one, if there is one.'}
        </p>
      </ConfirmDialog>
    </>
  );
}
