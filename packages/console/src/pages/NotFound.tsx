import { Link, usePageTitle } from '../router';

export function NotFound() {
  usePageTitle('Not found');
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        The console has no page at this address. <Link to="/">Back to the projects</Link>.
      </p>
    </main>
  );
}
