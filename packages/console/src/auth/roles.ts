/**
 * What the signed-in person may do on a project, as the gateway enforces it for console sessions
 * (docs/console.md, "Roles"): viewers read; developers also change the project's data
 * (collections, documents, users, files); owners also change its settings, delete it, rotate its
 * keys and manage its members. Platform admins, and the platform admin token, may do everything.
 * The console hides what a role may not do; the gateway refuses it anyway.
 */
export const ROLES = ['viewer', 'developer', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  viewer: 'Viewer: reads everything',
  developer: 'Developer: also changes data, schemas, users and files',
  owner: 'Owner: also settings, keys, members and deletion',
};

export interface Access {
  /** A platform admin (or the platform admin token): every project, every action. */
  platform: boolean;
  /** The roles of an account that is not a platform admin, by project id. */
  roles: ReadonlyMap<string, Role>;
}

export interface Permissions {
  /** Sees the project (any role). */
  read: boolean;
  /** Creates, edits and deletes the project's data: developer and owner. */
  write: boolean;
  /** Settings, deletion, key rotation, members: owner. */
  manage: boolean;
}

export const EVERYTHING: Access = { platform: true, roles: new Map() };

export function roleOn(access: Access, projectId: string): Role | 'platform' | undefined {
  return access.platform ? 'platform' : access.roles.get(projectId);
}

export function permissionsOn(access: Access, projectId: string): Permissions {
  const role = roleOn(access, projectId);
  const rank = role === 'platform' ? ROLES.length : role === undefined ? -1 : ROLES.indexOf(role);
  return { read: rank >= 0, write: rank >= 1, manage: rank >= 2 };
}
