import type { ConsoleRole } from '@baas/common';
import {
  consoleRequirement,
  consoleSessionChange,
  decideConsoleAccess,
  type ConsoleAccountAccess,
} from './console-access';

const P = '64b7f0c2a1b2c3d4e5f60718';
const Q = '64b7f0c2a1b2c3d4e5f60719';
const A = '64b7f0c2a1b2c3d4e5f6071a';

const on = (role: ConsoleRole): ConsoleAccountAccess => ({
  platformAdmin: false,
  memberships: [{ projectId: P, role }],
});
const platformAdmin: ConsoleAccountAccess = { platformAdmin: true, memberships: [] };

/** What `account` gets for `method path`: 'ok' or the refusal's code. */
function outcome(account: ConsoleAccountAccess, method: string, path: string): string {
  const d = decideConsoleAccess(account, consoleRequirement(method, path));
  return d.allowed ? 'ok' : d.refusal;
}

const ROLES: ConsoleRole[] = ['viewer', 'developer', 'owner'];

/**
 * The role matrix: for each request, what a viewer, a developer and an owner of project P get
 * (the request names P unless it says otherwise).
 */
type Row = [method: string, path: string, viewer: string, developer: string, owner: string];
/** The same outcome for every role. */
const same = (method: string, path: string, code: string): Row => [method, path, code, code, code];

const MATRIX: Row[] = [
  // the project list is filtered, everything else platform-wide is for platform admins
  ['GET', '/api/admin/projects', 'ok', 'ok', 'ok'],
  ['HEAD', '/api/admin/projects', 'ok', 'ok', 'ok'],
  ['GET', '/api/admin/projects/', 'ok', 'ok', 'ok'],
  ...['POST', 'PUT', 'PATCH', 'DELETE'].map((m) => same(m, '/api/admin/projects', 'PLATFORM_ADMIN_REQUIRED')),
  ...[
    ['GET', '/api/admin/mail/templates'],
    ['PUT', '/api/admin/mail/templates/welcome'],
    ['GET', '/api/admin/signing-keys'],
    ['POST', '/api/admin/signing-keys/rotate'],
    ['GET', '/api/admin/audit'],
    ['GET', '/api/admin/audit?projectId=x'],
    ['GET', '/api/admin/console/accounts'],
    ['POST', '/api/admin/console/accounts'],
    ['PATCH', `/api/admin/console/accounts/${A}`],
    ['DELETE', `/api/admin/console/accounts/${A}`],
    ['POST', `/api/admin/console/accounts/${A}/sessions/revoke`],
    ['GET', '/api/admin/anything-new'],
  ].map(([m = '', p = '']) => same(m, p, 'PLATFORM_ADMIN_REQUIRED')),
  // reading anything of the project: viewer and up
  ['GET', `/api/admin/projects/${P}`, 'ok', 'ok', 'ok'],
  ['HEAD', `/api/admin/projects/${P}`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/collections`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/documents/posts`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/users`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/files`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/mail/messages`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/usage`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/members`, 'ok', 'ok', 'ok'],
  ['GET', `/api/admin/projects/${P}/audit`, 'ok', 'ok', 'ok'],
  // the project itself, its keys and its members: owner
  ['PATCH', `/api/admin/projects/${P}`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['DELETE', `/api/admin/projects/${P}`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['DELETE', `/api/admin/projects/${P}/`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['POST', `/api/admin/projects/${P}`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['POST', `/api/admin/projects/${P}/keys/rotate`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['POST', `/api/admin/projects/${P}/keys/rotate/`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['POST', `/api/admin/projects/${P}/members`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['PATCH', `/api/admin/projects/${P}/members/${A}`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['DELETE', `/api/admin/projects/${P}/members/${A}`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  [
    'DELETE',
    `/api/admin/projects/${P}/members/invitations/${A}`,
    'INSUFFICIENT_ROLE',
    'INSUFFICIENT_ROLE',
    'ok',
  ],
  // spellings a service's router takes for the same route (case-insensitive, encoded, doubled slashes)
  ['POST', `/api/admin/projects/${P}/KEYS/ROTATE`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['POST', `/api/admin/projects/${P}/%6beys/rotate`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['POST', `/api/admin/projects/${P}//keys/rotate`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  ['PATCH', `/api/admin/projects/${P}/Members/${A}`, 'INSUFFICIENT_ROLE', 'INSUFFICIENT_ROLE', 'ok'],
  // any other change in the project: developer and up
  ['PUT', `/api/admin/projects/${P}/collections/posts`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['POST', `/api/admin/projects/${P}/collections`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['DELETE', `/api/admin/projects/${P}/collections/posts`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['POST', `/api/admin/projects/${P}/documents/posts`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['PATCH', `/api/admin/projects/${P}/documents/posts/${A}`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['DELETE', `/api/admin/projects/${P}/users/${A}`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['PUT', `/api/admin/projects/${P}/users-schema`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['POST', `/api/admin/projects/${P}/files`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['DELETE', `/api/admin/projects/${P}/files/a.png`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['PUT', `/api/admin/projects/${P}/mail/templates/welcome`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['POST', `/api/admin/projects/${P}/mail/templates/welcome/test`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['POST', `/api/admin/projects/${P}/mail/preview`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  ['OPTIONS', `/api/admin/projects/${P}/collections`, 'INSUFFICIENT_ROLE', 'ok', 'ok'],
  // another project, whatever the role on P: as if it did not exist
  ['GET', `/api/admin/projects/${Q}`, 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND'],
  [
    'GET',
    `/api/admin/projects/${Q}/collections`,
    'PROJECT_NOT_FOUND',
    'PROJECT_NOT_FOUND',
    'PROJECT_NOT_FOUND',
  ],
  ['PATCH', `/api/admin/projects/${Q}`, 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND'],
  [
    'POST',
    `/api/admin/projects/${Q}/keys/rotate`,
    'PROJECT_NOT_FOUND',
    'PROJECT_NOT_FOUND',
    'PROJECT_NOT_FOUND',
  ],
  ['GET', `/api/admin/projects/${Q}/audit`, 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND'],
  [
    'GET',
    `/api/admin/projects/${P.toUpperCase()}`,
    'PROJECT_NOT_FOUND',
    'PROJECT_NOT_FOUND',
    'PROJECT_NOT_FOUND',
  ],
  ['GET', `/api/admin/projects/${P}x`, 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND', 'PROJECT_NOT_FOUND'],
  // paths that cannot be placed in one project are left to platform admins
  same('GET', `/api/admin/projects/${P}/../${Q}`, 'PLATFORM_ADMIN_REQUIRED'),
  same('GET', `/api/admin/projects/${P}/%2e%2e/${Q}`, 'PLATFORM_ADMIN_REQUIRED'),
  same('GET', `/api/admin/projects/${P}/%E0%A4%A`, 'PLATFORM_ADMIN_REQUIRED'),
  same('GET', `/api/admin/projects//${P}`, 'PLATFORM_ADMIN_REQUIRED'),
  same('GET', '/api/admin/projects/%2e%2e', 'PLATFORM_ADMIN_REQUIRED'),
];

describe('the console role matrix', () => {
  it.each(MATRIX.flatMap(([m, path, ...want]) => ROLES.map((role, i) => [m, path, role, want[i]] as const)))(
    '%s %s as %s: %s',
    (method, path, role, want) => {
      expect(outcome(on(role), method, path)).toBe(want);
    },
  );

  it.each(MATRIX.map(([m, p]) => [m, p] as const))('a platform admin may %s %s', (method, path) => {
    expect(decideConsoleAccess(platformAdmin, consoleRequirement(method, path))).toEqual({ allowed: true });
  });

  it('an account without any role may list projects (none) and is refused everything else', () => {
    const none: ConsoleAccountAccess = { platformAdmin: false, memberships: [] };
    expect(decideConsoleAccess(none, consoleRequirement('GET', '/api/admin/projects'))).toEqual({
      allowed: true,
      scope: [],
    });
    expect(outcome(none, 'GET', `/api/admin/projects/${P}`)).toBe('PROJECT_NOT_FOUND');
    expect(outcome(none, 'POST', '/api/admin/projects')).toBe('PLATFORM_ADMIN_REQUIRED');
  });

  it("scopes the project list to the account's projects, and only the list", () => {
    const two: ConsoleAccountAccess = {
      platformAdmin: false,
      memberships: [
        { projectId: P, role: 'viewer' },
        { projectId: Q, role: 'owner' },
      ],
    };
    expect(decideConsoleAccess(two, consoleRequirement('GET', '/api/admin/projects'))).toEqual({
      allowed: true,
      scope: [P, Q],
    });
    expect(decideConsoleAccess(two, consoleRequirement('GET', `/api/admin/projects/${Q}`))).toEqual({
      allowed: true,
    });
    // the role is the one on the project the path names
    expect(outcome(two, 'PATCH', `/api/admin/projects/${P}`)).toBe('INSUFFICIENT_ROLE');
    expect(outcome(two, 'PATCH', `/api/admin/projects/${Q}`)).toBe('ok');
  });

  it('names the requirement of a request', () => {
    expect(consoleRequirement('get', `/api/admin/projects/${P}/members`)).toEqual({
      kind: 'project',
      projectId: P,
      role: 'viewer',
    });
    expect(consoleRequirement('POST', `/api/admin/projects/%36${P.slice(1)}/collections`)).toEqual({
      kind: 'project',
      projectId: P,
      role: 'developer',
    });
    expect(consoleRequirement('GET', '/api/admin/projects')).toEqual({ kind: 'project-list' });
    expect(consoleRequirement('GET', '/api/admin/projectsx')).toEqual({ kind: 'platform-admin' });
  });
});

describe('consoleSessionChange', () => {
  it.each([
    ['POST', '/api/console/logout', { kind: 'caller' }],
    ['POST', '/api/console/password', { kind: 'caller' }],
    ['POST', '/api/console/Logout', { kind: 'caller' }],
    ['PATCH', `/api/admin/projects/${P}/members/${A}`, { kind: 'account', accountId: A }],
    ['DELETE', `/api/admin/projects/${P}/members/${A}/`, { kind: 'account', accountId: A }],
    ['PATCH', `/api/admin/console/accounts/${A}`, { kind: 'account', accountId: A }],
    ['DELETE', `/api/admin/console/accounts/${A}`, { kind: 'account', accountId: A }],
    ['POST', `/api/admin/console/accounts/${A}/sessions/revoke`, { kind: 'account', accountId: A }],
    ['DELETE', `/api/admin/projects/${P}`, { kind: 'all' }],
  ])('%s %s changes %j', (method, path, change) => {
    expect(consoleSessionChange(method, path)).toEqual(change);
  });

  it.each([
    ['GET', '/api/console/session'],
    ['POST', '/api/console/login'],
    ['POST', '/api/console/password-reset/request'],
    ['POST', '/api/console/logout/x'],
    ['GET', `/api/admin/projects/${P}/members`],
    ['POST', `/api/admin/projects/${P}/members`],
    ['DELETE', `/api/admin/projects/${P}/members/invitations/${A}`],
    ['PATCH', `/api/admin/projects/${P}`],
    ['POST', `/api/admin/projects/${P}/keys/rotate`],
    ['POST', '/api/admin/console/accounts'],
    ['GET', `/api/admin/console/accounts/${A}`],
    ['DELETE', `/api/admin/projects/${P}/collections/posts`],
    ['POST', '/api/data/things'],
  ])('%s %s changes no session', (method, path) => {
    expect(consoleSessionChange(method, path)).toBeUndefined();
  });
});
