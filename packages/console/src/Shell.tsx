import { useConsole } from './api/context';
import { Link, matchPath, useLocation } from './router';
import { ProjectsPage } from './pages/ProjectsPage';
import { ProjectLayout } from './pages/ProjectLayout';
import { AccountsPage } from './pages/AccountsPage';
import { MyAccountPage } from './pages/MyAccountPage';
import { NotFound } from './pages/NotFound';
import { GlobalMail } from './pages/MailPage';

/** The signed-in frame: a skip link, the header, and the page the address names. */
export function Shell() {
  const { session, signOut } = useConsole();
  const { path } = useLocation();
  const project = matchPath('/projects/:projectId', path.split('/').slice(0, 3).join('/'));
  const platform = session.access.platform;
  let page;
  if (path === '/' || path === '/projects') page = <ProjectsPage />;
  else if (project?.projectId) page = <ProjectLayout projectId={project.projectId} path={path} />;
  else if (path === '/accounts' && platform) page = <AccountsPage />;
  else if ((path === '/mail-templates' || path.startsWith('/mail-templates/')) && platform)
    page = <GlobalMail path={path} />;
  else if (path === '/account' && session.account) page = <MyAccountPage />;
  else page = <NotFound />;
  const current = (to: string, also?: string) => (path === to || path === also ? 'page' : undefined);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          BaaS console
        </Link>
        <nav aria-label="Console">
          <Link to="/" aria-current={current('/', '/projects')}>
            Projects
          </Link>
          {platform && (
            <Link to="/accounts" aria-current={current('/accounts')}>
              Accounts
            </Link>
          )}
          {platform && (
            <Link to="/mail-templates" aria-current={path.startsWith('/mail-templates') ? 'page' : undefined}>
              Mail templates
            </Link>
          )}
        </nav>
        <span className="session">
          {session.account ? (
            <Link to="/account" aria-current={current('/account')} title="Your account">
              {session.label}
              {platform ? ' (platform admin)' : ''}
            </Link>
          ) : (
            <span className="muted">{session.label}</span>
          )}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      {page}
    </>
  );
}
