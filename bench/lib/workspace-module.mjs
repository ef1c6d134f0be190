// Packages the bench shares with the services (argon2, undici, pg, jose) are declared by the
// workspaces that use them, not by the repository's root. The bench loads each one as its
// workspace resolves it, so that it runs the very copy the service runs (raw argon2 is the auth
// service's argon2, the bare proxy dispatches with the gateway's undici) whatever npm hoists.
import { createRequire } from 'node:module';

const ROOT = new URL('../../', import.meta.url);

/** `name` as resolved from the workspace at `dir` (relative to the repository's root). */
export function workspaceModule(dir, name) {
  return createRequire(new URL(`${dir}/package.json`, ROOT))(name);
}
