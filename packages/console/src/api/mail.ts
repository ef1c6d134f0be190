import { ok, type Api } from './client';
import type { ApiPaths } from './client';

type Json<P extends keyof ApiPaths, M extends keyof ApiPaths[P], S extends number> = ApiPaths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;
type BodyOf<P extends keyof ApiPaths, M extends keyof ApiPaths[P]> = ApiPaths[P][M] extends {
  requestBody: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type MailTemplate = Json<'/api/admin/projects/{projectId}/mail/templates/{key}', 'get', 200>;
export type MailTemplateBody = BodyOf<'/api/admin/projects/{projectId}/mail/templates/{key}', 'put'>;
export type MailPreviewBody = BodyOf<'/api/admin/projects/{projectId}/mail/preview', 'post'>;
export type RenderedMail = Json<'/api/admin/projects/{projectId}/mail/preview', 'post', 200>['data'];
export type MailMessagePage = Json<'/api/admin/projects/{projectId}/mail/messages', 'get', 200>['data'];
export type MailMessage = MailMessagePage['items'][number];

/** Whose templates: one project's (its overrides) or the platform's global ones. */
export type MailOwner = { scope: 'project'; projectId: string } | { scope: 'global' };

/** The template routes of either owner, as one interface for the editor and the lists. */
export interface MailTemplatesApi {
  list: () => Promise<MailTemplate[]>;
  get: (key: string) => Promise<MailTemplate>;
  save: (key: string, body: MailTemplateBody) => Promise<MailTemplate>;
  remove: (key: string) => Promise<void>;
  preview: (body: MailPreviewBody, signal?: AbortSignal) => Promise<RenderedMail>;
}

export function mailTemplatesApi(api: Api, owner: MailOwner): MailTemplatesApi {
  if (owner.scope === 'global')
    return {
      list: () => ok(api.GET('/api/admin/mail/templates')),
      get: (key) => ok(api.GET('/api/admin/mail/templates/{key}', { params: { path: { key } } })),
      save: (key, body) =>
        ok(api.PUT('/api/admin/mail/templates/{key}', { params: { path: { key } }, body })),
      remove: async (key) => {
        await ok(api.DELETE('/api/admin/mail/templates/{key}', { params: { path: { key } } }));
      },
      preview: async (body, signal) => (await ok(api.POST('/api/admin/mail/preview', { body, signal }))).data,
    };
  const projectId = owner.projectId;
  const base = '/api/admin/projects/{projectId}/mail/templates/{key}' as const;
  return {
    list: () =>
      ok(api.GET('/api/admin/projects/{projectId}/mail/templates', { params: { path: { projectId } } })),
    get: (key) => ok(api.GET(base, { params: { path: { projectId, key } } })),
    save: (key, body) => ok(api.PUT(base, { params: { path: { projectId, key } }, body })),
    remove: async (key) => {
      await ok(api.DELETE(base, { params: { path: { projectId, key } } }));
    },
    preview: async (body, signal) =>
      (
        await ok(
          api.POST('/api/admin/projects/{projectId}/mail/preview', {
            params: { path: { projectId } },
            body,
            signal,
          }),
        )
      ).data,
  };
}
