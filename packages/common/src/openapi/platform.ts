import type { ApiRoute } from './route';
import { buildOpenApiDocument } from './document';

const DESCRIPTION = `A multi-tenant Backend-as-a-Service: project API keys, end-user auth, document collections
with row-level security and aggregation, file storage and transactional mail, behind one gateway.

Every \`/api/...\` request carries a project key in \`x-api-key\`, except the admin API (\`Authorization:
Bearer <PLATFORM_ADMIN_TOKEN>\`, or a console account's session cookie within its roles) and the
public routes. Every answer carries \`x-request-id\`; every error (status >= 400) has the body
\`ErrorBody\`. Generated from the services' route registries
(\`npm run openapi\`); see docs/api.md for the behaviour behind each route.`;

const TAGS: Record<string, string> = {
  'User auth': 'End users of a project: signup, login, tokens, profile, codes (`/api/userAuth/*`).',
  Data: 'Documents of registered collections, with row-level security (`/api/data/*`).',
  Storage: 'File uploads and their public URLs.',
  Mail: 'Transactional mail (secret key only).',
  Platform: 'The gateway itself.',
  'Admin: projects': 'Projects, their keys and the signing keys (platform admin token).',
  'Admin: users': "A project's end users (platform admin token).",
  'Admin: collections': "A project's collections (platform admin token).",
  'Admin: documents':
    "A project's documents, as its secret key would see them, for a console (platform admin token).",
  'Admin: files': "A project's files: list, upload, delete (platform admin token).",
  'Admin: mail':
    'Mail templates (project overrides and global ones), previews, test sends and the sent-mail log (platform admin token).',
  'Admin: usage': 'What a project uses against its limits (platform admin token).',
  'Admin: audit': 'The audit log of admin actions (platform admin token).',
  Console:
    'Console accounts signing in: email and password into a cookie session, the session, password change and reset, invitations (`/api/console/*`).',
  'Admin: console':
    "Console accounts (platform admins) and a project's members and invitations (its owners).",
};

/** The platform's document: every service's registry, in the order given. */
export function platformOpenApiDocument(
  registries: ReadonlyArray<readonly ApiRoute[]>,
  version: string,
): Record<string, unknown> {
  return buildOpenApiDocument(registries.flat(), {
    title: 'BaaS API',
    version,
    description: DESCRIPTION,
    tags: TAGS,
  });
}
