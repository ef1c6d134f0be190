import { useConsole } from '../api/context';
import { ok } from '../api/client';
import type { MailMessage } from '../api/mail';
import { ErrorNotice } from '../components/ErrorNotice';
import { CursorPager, TableHead, useCursorPaging } from '../components/Paging';
import { formatDate } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { Link, matchPath, usePageTitle } from '../router';
import { MailTemplatePage } from './MailTemplatePage';
import { MailTemplatesList } from './MailTemplatesList';
import { NotFound } from './NotFound';
import type { ProjectPageProps } from './ProjectLayout';
import './mail.css';

/**
 * A project's mail (`/projects/<id>/mail...`): its templates (overrides of the global ones), the
 * template editor with a live preview and test sends, and the sent-mail log.
 */
export function ProjectMail({ project, can, rest }: ProjectPageProps & { rest: string }) {
  const canWrite = can.write;
  const base = `/projects/${project.id}/mail`;
  const owner = { scope: 'project', projectId: project.id } as const;
  const scopeLabel = project.name;
  let params: Record<string, string> | undefined;
  if (rest === '/mail' || rest === '/mail/') return <MailTemplatesPage {...{ project, base, canWrite }} />;
  if (rest === '/mail/messages') return <MailMessagesPage project={project} base={base} />;
  if (rest === '/mail/templates/new' && canWrite)
    return <MailTemplatePage key="new" {...{ owner, base, scopeLabel, canWrite }} templateKey={undefined} />;
  if ((params = matchPath('/mail/templates/:key', rest)))
    return (
      <MailTemplatePage
        key={params.key}
        {...{ owner, base, scopeLabel, canWrite }}
        templateKey={params.key}
      />
    );
  return <NotFound />;
}

/** Templates and Sent mail, the two views of a project's mail. */
function MailTabs({ base, current }: { base: string; current: 'templates' | 'messages' }) {
  return (
    <nav className="tabs" aria-label="Mail">
      <Link to={base} aria-current={current === 'templates' ? 'page' : undefined}>
        Templates
      </Link>
      <Link to={`${base}/messages`} aria-current={current === 'messages' ? 'page' : undefined}>
        Sent mail
      </Link>
    </nav>
  );
}

function MailTemplatesPage({
  project,
  base,
  canWrite,
}: Pick<ProjectPageProps, 'project'> & { base: string; canWrite: boolean }) {
  usePageTitle(`Mail · ${project.name}`);
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Mail</h1>
      <MailTabs base={base} current="templates" />
      <p className="help">
        The project’s own templates. A send by template name uses the project’s template of that key, else the
        global one, else the built-in one (<code>verify-email</code>, <code>password-reset</code>).
      </p>
      <MailTemplatesList
        owner={{ scope: 'project', projectId: project.id }}
        base={base}
        canWrite={canWrite}
        caption={`Mail templates of ${project.name}`}
      />
    </main>
  );
}

const STATUS_BADGE: Record<MailMessage['status'], string> = {
  sent: 'badge ok',
  failed: 'badge bad',
  sending: 'badge warn',
};

/** The sent-mail log: newest first, 20 a page by cursor, with each message's status. */
function MailMessagesPage({ project, base }: Pick<ProjectPageProps, 'project'> & { base: string }) {
  usePageTitle(`Sent mail · ${project.name}`);
  const { api } = useConsole();
  const paging = useCursorPaging();
  const { cursor } = paging;
  const page = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/mail/messages', {
            params: { path: { projectId: project.id }, query: { limit: '20', cursor } },
          }),
        )
      ).data,
    [api, project.id, cursor],
  );
  const items = page.data?.items ?? [];
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Mail</h1>
      <MailTabs base={base} current="messages" />
      <div className="section-head">
        <p className="help">
          Every mail the project sent: API sends, test sends and the platform’s verification and reset mails.
          Bodies are not kept.
        </p>
        <button type="button" onClick={page.reload} disabled={page.loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={page.error} />
      <table className="table">
        <caption className="visually-hidden">Sent mail of {project.name}</caption>
        <TableHead columns={['Sent', 'To', 'Template', 'Status', 'Attempts', 'Error']} />
        <tbody>
          {items.map((m) => (
            <tr key={m.id}>
              <td>{formatDate(m.createdAt)}</td>
              <th scope="row">{m.to}</th>
              <td>
                {m.templateKey ? (
                  <span className="mono">{m.templateKey}</span>
                ) : (
                  <span className="muted">direct</span>
                )}
                {m.system && <span className="badge">platform</span>}
              </td>
              <td>
                <span className={STATUS_BADGE[m.status]}>{m.status}</span>
              </td>
              <td>{m.attempts ?? '–'}</td>
              <td className="mail-error">{m.error ?? ''}</td>
            </tr>
          ))}
          {items.length === 0 && !page.loading && (
            <tr>
              <td colSpan={6} className="muted">
                No mail sent yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <CursorPager paging={paging} nextCursor={page.data?.nextCursor} loading={page.loading} />
    </main>
  );
}

/**
 * The platform's global templates (`/mail-templates...`, platform admins): what every project
 * without a template of its own under the key sends, the built-in ones overridden included.
 */
export function GlobalMail({ path }: { path: string }) {
  const base = '/mail-templates';
  const owner = { scope: 'global' } as const;
  const props = { owner, base, scopeLabel: 'Global', canWrite: true };
  let params: Record<string, string> | undefined;
  if (path === base || path === `${base}/`) return <GlobalTemplatesPage />;
  if (path === `${base}/templates/new`)
    return <MailTemplatePage key="new" {...props} templateKey={undefined} />;
  if ((params = matchPath(`${base}/templates/:key`, path)))
    return <MailTemplatePage key={params.key} {...props} templateKey={params.key} />;
  return <NotFound />;
}

function GlobalTemplatesPage() {
  usePageTitle('Global mail templates');
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Global mail templates</h1>
      <p className="help">
        What every project sends under a key unless it has a template of its own with that key. A global{' '}
        <code>verify-email</code> or <code>password-reset</code> replaces the built-in one for all projects.
      </p>
      <MailTemplatesList
        owner={{ scope: 'global' }}
        base="/mail-templates"
        canWrite
        caption="Global mail templates"
      />
    </main>
  );
}
