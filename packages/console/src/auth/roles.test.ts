import { EVERYTHING, permissionsOn, roleOn, type Access } from './roles';

const P = 'a'.repeat(24);
const Q = 'b'.repeat(24);
const account = (roles: Record<string, 'viewer' | 'developer' | 'owner'>): Access => ({
  platform: false,
  roles: new Map(Object.entries(roles)),
});

describe('what a role may do in the console', () => {
  it('viewers read, developers also write, owners also manage', () => {
    expect(permissionsOn(account({ [P]: 'viewer' }), P)).toEqual({ read: true, write: false, manage: false });
    expect(permissionsOn(account({ [P]: 'developer' }), P)).toEqual({
      read: true,
      write: true,
      manage: false,
    });
    expect(permissionsOn(account({ [P]: 'owner' }), P)).toEqual({ read: true, write: true, manage: true });
  });

  it('nothing on a project without a role; everything for platform admins and the token', () => {
    expect(permissionsOn(account({ [P]: 'owner' }), Q)).toEqual({ read: false, write: false, manage: false });
    expect(roleOn(account({ [P]: 'owner' }), Q)).toBeUndefined();
    expect(permissionsOn(EVERYTHING, Q)).toEqual({ read: true, write: true, manage: true });
    expect(roleOn({ platform: true, roles: new Map([[P, 'viewer']]) }, P)).toBe('platform');
  });
});
