import { useConsole } from '../api/context';
import { ok } from '../api/client';
import type { Project } from '../api/types';
import { ErrorNotice } from '../components/ErrorNotice';
import { useLoad } from '../lib/use-load';
import { Link, matchPath } from '../router';
import { NotFound } from './NotFound';
import { ProjectOverview } from './ProjectOverview';
import { ProjectSettingsPage } from './ProjectSettingsPage';
import { KeysPage } from './KeysPage';
import { CollectionsPage } from './CollectionsPage';
import { CollectionEditorPage } from './CollectionEditorPage';
import { DocumentsPage } from './DocumentsPage';
import { DocumentPage } from './DocumentPage';
import { UsersPage } from './UsersPage';
import { UsersSchemaPage } from './UsersSchemaPage';
import { FilesPage } from './FilesPage';
import { ProjectMail } from './MailPage';
import { MembersPage } from './MembersPage';
import { AuditPage } from './AuditPage';
import { permissionsOn, roleOn, type Permissions } from '../auth/roles';

export interface ProjectPageProps {
  project: Project;
  /** Loads the project again (after a change of settings or keys). */
  reload: () => void;
  /** What the signed-in person may do here (pages show only the controls of their role). */
  can: Permissions;
}

const SECTIONS = [
  { to: '', label: 'Overview' },
  { to: '/settings', label: 'Settings' },
  { to: '/keys', label: 'API keys' },
  { to: '/collections', label: 'Collections' },
  { to: '/users', label: 'Users' },
  { to: '/users-schema', label: 'Users schema' },
  { to: '/files', label: 'Files' },
  { to: '/mail', label: 'Mail' },
  { to: '/members', label: 'Members' },
  { to: '/audit', label: 'Audit log' },
];

/** One project: its sections in a side navigation, the section the address names beside it. */
export function ProjectLayout({ projectId, path }: { projectId: string; path: string }) {
  const { api, session } = useConsole();
  const loaded = useLoad(
    () => ok(api.GET('/api/admin/projects/{projectId}', { params: { path: { projectId } } })),
    [api, projectId],
  );
  const base = `/projects/${projectId}`;
  const rest = path.slice(base.length) || '';
  const current = SECTIONS.filter((s) => s.to !== '' && (rest === s.to || rest.startsWith(`${s.to}/`))).sort(
    (a, b) => b.to.length - a.to.length,
  )[0]?.to;

  if (!loaded.data)
    return (
      <main id="main" className="page">
        <h1 tabIndex={-1}>Project</h1>
        {loaded.loading ? <p role="status">Loading…</p> : <ErrorNotice error={loaded.error} />}
        <p>
          <Link to="/">Back to the projects</Link>
        </p>
      </main>
    );

  const project = loaded.data;
  const can = permissionsOn(session.access, project.id);
  const role = roleOn(session.access, project.id);
  const props: ProjectPageProps = { project, reload: loaded.reload, can };
  const m = (pattern: string) => matchPath(`${base}${pattern}`, path);
  let page;
  let params: Record<string, string> | undefined;
  if (rest === '' || rest === '/') page = <ProjectOverview {...props} />;
  else if (m('/settings')) page = <ProjectSettingsPage {...props} />;
  else if (m('/keys')) page = <KeysPage {...props} />;
  else if (m('/collections')) page = <CollectionsPage {...props} />;
  else if (m('/collections/new')) page = <CollectionEditorPage {...props} name={undefined} />;
  else if ((params = m('/collections/:name')))
    page = <CollectionEditorPage key={params.name} {...props} name={params.name} />;
  else if ((params = m('/collections/:name/documents')))
    page = <DocumentsPage key={params.name} {...props} collection={params.name ?? ''} />;
  else if ((params = m('/collections/:name/documents/new')))
    page = <DocumentPage key="new" {...props} collection={params.name ?? ''} documentId={undefined} />;
  else if ((params = m('/collections/:name/documents/:docId')))
    page = (
      <DocumentPage key={params.docId} {...props} collection={params.name ?? ''} documentId={params.docId} />
    );
  else if (m('/users')) page = <UsersPage {...props} />;
  else if (m('/users-schema')) page = <UsersSchemaPage {...props} />;
  else if (m('/files')) page = <FilesPage {...props} />;
  else if (rest === '/mail' || rest.startsWith('/mail/')) page = <ProjectMail {...props} rest={rest} />;
  else if (m('/members')) page = <MembersPage {...props} />;
  else if (m('/audit')) page = <AuditPage {...props} />;
  else page = <NotFound />;

  return (
    <div className="project-layout">
      <nav className="sidebar" aria-label={`Project ${project.name}`}>
        <p className="sidebar-title">
          <span className="visually-hidden">Project </span>
          {project.name}
        </p>
        {role && role !== 'platform' && (
          <p className="sidebar-role">
            Your role: <strong>{role}</strong>
          </p>
        )}
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.to}>
              <Link
                to={`${base}${s.to}`}
                aria-current={
                  (s.to === '' ? rest === '' || rest === '/' : current === s.to) ? 'page' : undefined
                }
              >
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {page}
    </div>
  );
}
