import type { ApiPaths } from './client';

/** The JSON answer of an operation, by path, method and status, as the OpenAPI document says. */
type Json<P extends keyof ApiPaths, M extends keyof ApiPaths[P], S extends number> = ApiPaths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

export type Project = Json<'/api/admin/projects/{projectId}', 'get', 200>;
export type ProjectSettings = Project['settings'];
export type NewProject = Json<'/api/admin/projects', 'post', 201>;
export type RotatedKeys = Json<'/api/admin/projects/{projectId}/keys/rotate', 'post', 200>;
export type Usage = Json<'/api/admin/projects/{projectId}/usage', 'get', 200>['data'];
export type Collection = Json<'/api/admin/projects/{projectId}/collections/{name}', 'get', 200>;
export type Rls = Collection['rls'];
export type DocumentPage = Json<
  '/api/admin/projects/{projectId}/documents/{collectionName}',
  'get',
  200
>['data'];
export type StoredDocument = DocumentPage['items'][number];
export type UserPage = Json<'/api/admin/projects/{projectId}/users', 'get', 200>['data'];
export type User = UserPage['items'][number];
export type FilePage = Json<'/api/admin/projects/{projectId}/files', 'get', 200>['data'];
export type AdminFile = FilePage['items'][number];
export type AuditPage = Json<'/api/admin/projects/{projectId}/audit', 'get', 200>['data'];
export type AuditEntry = AuditPage['items'][number];
export type AuditAction = AuditEntry['action'];

export type SessionView = Json<'/api/console/session', 'get', 200>['data'];
export type Invitation = Json<'/api/console/invitations/inspect', 'post', 200>['data'];
export type Members = Json<'/api/admin/projects/{projectId}/members', 'get', 200>['data'];
export type Member = Members['members'][number];
export type PendingInvitation = Members['invitations'][number];
export type AccountPage = Json<'/api/admin/console/accounts', 'get', 200>['data'];
export type Account = AccountPage['items'][number];
