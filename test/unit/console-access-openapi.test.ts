import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { platformOpenApiDocument } from '@baas/common';
import { gatewayApiRoutes } from '../../services/gateway/src/http/api-routes';
import { authApiRoutes } from '../../services/auth/src/http/api-routes';
import { dataApiRoutes } from '../../services/data/src/http/api-routes';
import { storageApiRoutes } from '../../services/storage/src/http/api-routes';
import { mailApiRoutes } from '../../services/mail/src/http/api-routes';
import {
  consoleRequirement,
  decideConsoleAccess,
  type ConsoleAccountAccess,
} from '../../services/gateway/src/domain/console-access';

/**
 * The OpenAPI document lists, on every admin route, what the gateway may refuse a console session
 * there (packages/common/src/openapi/document.ts says it from the path; the gateway decides from
 * the request): every refusal the gateway can give is documented.
 */
type Json = Record<string, any>; // a parsed document
const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as Json)
  .version as string;
const doc = platformOpenApiDocument(
  [gatewayApiRoutes, authApiRoutes, dataApiRoutes, storageApiRoutes, mailApiRoutes],
  version,
) as Json;

const P = '64b7f0c2a1b2c3d4e5f60718';
const OTHER = '64b7f0c2a1b2c3d4e5f60719';
const ACCOUNTS: Record<string, ConsoleAccountAccess> = {
  viewer: { platformAdmin: false, memberships: [{ projectId: P, role: 'viewer' }] },
  developer: { platformAdmin: false, memberships: [{ projectId: P, role: 'developer' }] },
  owner: { platformAdmin: false, memberships: [{ projectId: P, role: 'owner' }] },
  'member elsewhere': { platformAdmin: false, memberships: [{ projectId: OTHER, role: 'owner' }] },
};
const STATUS = { PLATFORM_ADMIN_REQUIRED: 403, INSUFFICIENT_ROLE: 403, PROJECT_NOT_FOUND: 404 } as const;

function documentedCodes(op: Json, status: number): string[] {
  const ref = op.responses?.[String(status)]?.$ref as string | undefined;
  if (!ref) return [];
  const res = doc.components.responses[ref.split('/').pop() ?? ''] as Json;
  return res.content['application/json'].schema.allOf[1].properties.code.enum as string[];
}

const adminOperations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json)
    .filter(([, op]) => (op as Json).security?.some((s: Json) => 'adminToken' in s))
    .map(([method, op]) => [method.toUpperCase(), path, op as Json] as const),
);

describe("the OpenAPI document's console refusals", () => {
  it('covers the admin routes', () => {
    expect(adminOperations.length).toBeGreaterThan(20);
  });

  it.each(adminOperations)(
    '%s %s documents what the gateway may refuse a console session',
    (method, path, op) => {
      const concrete = path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'projectId' ? P : 'x1'));
      for (const [who, account] of Object.entries(ACCOUNTS)) {
        const d = decideConsoleAccess(account, consoleRequirement(method, concrete));
        if (d.allowed) continue;
        expect([who, d.refusal, documentedCodes(op, STATUS[d.refusal])]).toEqual([
          who,
          d.refusal,
          expect.arrayContaining([d.refusal]),
        ]);
      }
      expect(documentedCodes(op, 403)).toContain('CSRF_TOKEN_INVALID');
    },
  );

  it('offers the console session beside the token on every admin route', () => {
    for (const [, , op] of adminOperations)
      expect(op.security).toEqual([{ adminToken: [] }, { consoleSession: [] }]);
    expect(doc.components.securitySchemes.consoleSession).toMatchObject({
      in: 'cookie',
      name: 'baas_console',
    });
  });
});
