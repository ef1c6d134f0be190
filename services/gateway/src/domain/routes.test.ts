import { isUsersCollectionPath, matchRoute, mutatedProjectId } from './routes';

describe('matchRoute', () => {
  it.each([
    ['/api/userAuth/login', 'auth', 'key', true],
    ['/api/data/things', 'data', 'key', false],
    ['/api/data/things/64b7f0c2a1b2c3d4e5f60718', 'data', 'key', false],
    ['/api/storage/upload', 'storage', 'key', false],
    ['/api/mail/send', 'mail', 'key', false],
    ['/api/admin/projects', 'auth', 'admin', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/keys/rotate', 'auth', 'admin', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/collections/posts', 'data', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/mail/templates/welcome', 'mail', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/users-schema', 'auth', 'admin-project', false],
    ['/api/admin/mail/templates/welcome', 'mail', 'admin', false],
    ['/api/admin/signing-keys/rotate', 'auth', 'admin', false],
    ['/api/admin/audit', 'auth', 'admin', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/audit', 'auth', 'admin', false],
    ['/files/64b7f0c2a1b2c3d4e5f60718/a.png', 'storage', 'public', false],
    ['/.well-known/jwks.json', 'auth', 'public', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/users', 'auth', 'admin-project', false],
    [
      '/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/users/64b7f0c2a1b2c3d4e5f60719',
      'auth',
      'admin-project',
      false,
    ],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/data/usage', 'data', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/documents/posts', 'data', 'admin-project', false],
    [
      '/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/documents/posts/64b7f0c2a1b2c3d4e5f60719/restore',
      'data',
      'admin-project',
      false,
    ],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/files', 'storage', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/files/abc.png', 'storage', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/mail/messages', 'mail', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/storage/usage', 'storage', 'admin-project', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/usage', 'gateway', 'admin-project', false],
    ['/api/openapi.json', 'gateway', 'public', false],
    ['/api/console/login', 'auth', 'public', true],
    ['/api/console/session', 'auth', 'public', false],
    ['/api/console/logout', 'auth', 'public', false],
    ['/api/console/session/', 'auth', 'public', true],
    ['/api/console/password', 'auth', 'public', true],
    ['/api/console/invitations/accept', 'auth', 'public', true],
    ['/api/admin/console/accounts', 'auth', 'admin', false],
    ['/api/admin/console/accounts/64b7f0c2a1b2c3d4e5f60719/sessions/revoke', 'auth', 'admin', false],
    ['/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/members', 'auth', 'admin-project', false],
    [
      '/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/members/invitations/64b7f0c2a1b2c3d4e5f60719',
      'auth',
      'admin-project',
      false,
    ],
  ])('routes %s to %s with %s auth', (path, service, auth, authLimiter) => {
    expect(matchRoute(path)).toMatchObject({ service, auth, authLimiter });
  });

  it('routes nothing else (internal APIs are unreachable from outside)', () => {
    for (const p of [
      '/internal/keys/resolve',
      '/internal/console/sessions/resolve',
      '/api',
      '/api/dataX',
      '/metrics',
      '/api/userAuthX',
      '/api/consoleX',
      '/api/admin',
      '/api/admin/consoleX',
    ]) {
      expect(matchRoute(p)).toBeUndefined();
    }
  });

  it("answers the gateway's own routes itself, and only at their exact paths", () => {
    expect(matchRoute('/api/openapi.json')?.answer).toBe('openapi');
    expect(matchRoute('/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/usage')?.answer).toBe('project-usage');
    expect(matchRoute('/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/usage/x')).toBeUndefined();
    expect(matchRoute('/api/openapi.jsonx')).toBeUndefined();
    expect(matchRoute('/api/admin/projects/64b7f0c2a1b2c3d4e5f60718/constructor')?.service).toBe('auth');
  });

  it('captures the project id of admin sub-resources', () => {
    expect(matchRoute('/api/admin/projects/abc/collections')?.projectId).toBe('abc');
  });
});

describe('isUsersCollectionPath', () => {
  it.each([
    '/api/data/users',
    '/api/data/users/',
    '/api/data/users/64b7f0c2a1b2c3d4e5f60718',
    '/api/data/users/aggregate',
    '/api/data/Users',
    '/api/data/%75sers',
    '/api/data//users',
  ])('blocks %s', (p) => expect(isUsersCollectionPath(p)).toBe(true));
  it.each(['/api/data/usersx', '/api/data/things/users', '/api/data', '/api/storage/users'])(
    'lets %s through',
    (p) => expect(isUsersCollectionPath(p)).toBe(false),
  );
});

describe('mutatedProjectId', () => {
  const id = '64b7f0c2a1b2c3d4e5f60718';
  it.each([
    ['PATCH', `/api/admin/projects/${id}`],
    ['DELETE', `/api/admin/projects/${id}`],
    ['POST', `/api/admin/projects/${id}/keys/rotate`],
  ])('names the project changed by %s %s', (method, path) => expect(mutatedProjectId(method, path)).toBe(id));
  it.each([
    ['GET', `/api/admin/projects/${id}`],
    ['POST', '/api/admin/projects'],
    ['POST', `/api/admin/projects/${id}`],
    ['PUT', `/api/admin/projects/${id}/collections/x`],
  ])('ignores %s %s', (method, path) => expect(mutatedProjectId(method, path)).toBeUndefined());
});

describe('the console’s session check and sign-out', () => {
  it('are limited per caller (the session’s account), the credential routes per address and strictly', () => {
    expect(matchRoute('/api/console/session')).toMatchObject({ perCaller: true, authLimiter: false });
    expect(matchRoute('/api/console/logout')).toMatchObject({ perCaller: true, authLimiter: false });
    for (const path of [
      '/api/console/login',
      '/api/console/password-reset',
      '/api/console/invitations/accept',
    ])
      expect(matchRoute(path)).not.toHaveProperty('perCaller');
  });
});
