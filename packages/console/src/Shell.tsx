import { useConsole } from './api/context';
import { Link, matchPath, useLocation } from './router';
import { ProjectsPage } from './pages/ProjectsPage';
import { ProjectLayout } from './pages/ProjectLayout';
import { NotFound } from './pages/NotFound';

/** The signed-in frame: a skip link, the header, and the page the address names. */
export function Shell() {
  const { session, signOut } = useConsole();
  const { path } = useLocation();
  const project = matchPath('/projects/:projectId', path.split('/').slice(0, 3).join('/'));
  let page;
  if (path === '/' || path === '/projects') page = <ProjectsPage />;
  else if (project?.projectId) page = <ProjectLayout projectId={project.projectId} path={path} />;
  else page = <NotFound />;
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
          <Link to="/" aria-current={path === '/' || path === '/projects' ? 'page' : undefined}>
            Projects
          </Link>
        </nav>
        <span className="session">
          <span className="muted">{session.label}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      {page}
    </>
  );
}
