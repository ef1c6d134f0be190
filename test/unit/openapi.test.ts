import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { platformOpenApiDocument } from '@baas/common';
import { gatewayApiRoutes } from '../../services/gateway/src/http/api-routes';
import { authApiRoutes } from '../../services/auth/src/http/api-routes';
import { dataApiRoutes } from '../../services/data/src/http/api-routes';
import { storageApiRoutes } from '../../services/storage/src/http/api-routes';
import { mailApiRoutes } from '../../services/mail/src/http/api-routes';
import {
  ADMIN_PROJECT_SEGMENTS,
  ROUTE_GROUPS,
  matchRoute,
  type RouteAuth,
} from '../../services/gateway/src/domain/routes';
import { OPENAPI_FILE } from '../../services/gateway/src/http/openapi';

const root = join(__dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
// The same registries, in the same order, as scripts/openapi.mjs.
const generated = `${JSON.stringify(
  platformOpenApiDocument(
    [gatewayApiRoutes, authApiRoutes, dataApiRoutes, storageApiRoutes, mailApiRoutes],
    version,
  ),
  null,
  2,
)}\n`;
// OPENAPI_WRITE=1 rewrites the committed file from the sources (what `npm run openapi` does from dist).
if (process.env.OPENAPI_WRITE === '1') writeFileSync(OPENAPI_FILE, generated);

type Operation = { operationId: string; security: unknown[]; responses: Record<string, unknown> } & Record<
  string,
  unknown
>;
const doc = JSON.parse(generated) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op })),
);

/** A concrete path for a template: a project id where one is asked, a plain word elsewhere. */
function concrete(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    name === 'projectId' || name === 'id' || name === 'userId' ? '64b7f0c2a1b2c3d4e5f60718' : 'things',
  );
}

const AUTH_OF_SECURITY: Record<string, RouteAuth[]> = {
  admin: ['admin', 'admin-project'],
  key: ['key'],
  public: ['public'],
};
function securityKind(op: Operation): string {
  const first = (op.security[0] ?? {}) as Record<string, unknown>;
  // The console's own cookie routes pass the gateway as public: the auth service checks the session.
  if (op.security.length === 0 || 'consoleSession' in first) return 'public';
  return 'adminToken' in first ? 'admin' : 'key';
}

describe('the OpenAPI document', () => {
  it('is what the route registries generate (run `npm run openapi` after changing a route)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(generated);
  });

  it.each(operations.map((o) => [o.method.toUpperCase(), o.path, o.op] as const))(
    'documents %s %s as the gateway routes it',
    (_method, path, op) => {
      const route = matchRoute(concrete(path));
      expect(route).toBeDefined();
      expect(route?.service).toBe(op['x-baas-service']);
      expect(AUTH_OF_SECURITY[securityKind(op)]).toContain(route?.auth);
    },
  );

  it('documents at least one route of every group the gateway routes', () => {
    const documented = operations.map((o) => concrete(o.path));
    const groups = [
      ...ROUTE_GROUPS.map((g) => g.prefix),
      ...Object.keys(ADMIN_PROJECT_SEGMENTS).map((s) => `/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/${s}`),
    ];
    for (const prefix of groups)
      expect([prefix, documented.some((p) => p === prefix || p.startsWith(`${prefix}/`))]).toEqual([
        prefix,
        true,
      ]);
  });

  it('gives every operation a success answer and the error body for its failures', () => {
    for (const { op } of operations) {
      const statuses = Object.keys(op.responses).map(Number);
      expect(statuses.some((s) => s >= 200 && s < 300)).toBe(true);
      expect(statuses).toEqual(expect.arrayContaining([429, 500, 503]));
    }
  });
});
