import { errors, type ProjectId } from '@baas/common';
import type { MailContent } from '../mail/render';
import type { MailDeps } from '../deps';
import { builtinTemplate } from './builtin';
import type { StoredTemplate, TemplateContent } from './template';

export type TemplateSource = 'project' | 'global' | 'system' | 'legacy';

export interface ResolvedTemplate {
  key: string;
  source: TemplateSource;
  content: MailContent;
}

const OBJECT_ID = /^[a-f0-9]{24}$/i;

/** What a template sends before substitution: MJML's compiled HTML stands for the HTML part. */
export function mailContentOf(t: TemplateContent): MailContent {
  const content: MailContent = { subject: t.subject };
  const html = t.compiledHtml ?? t.html;
  if (html !== undefined) content.html = html;
  if (t.text !== undefined) content.text = t.text;
  return content;
}

function fromStored(t: StoredTemplate): ResolvedTemplate {
  return { key: t.key, source: t.owner.scope, content: mailContentOf(t) };
}

/**
 * By name: the project's override, then the global/system template stored by the operator,
 * then the template shipped in code (system defaults and legacy embedded ones).
 */
export async function resolveTemplateByName(
  deps: Pick<MailDeps, 'templates'>,
  projectId: ProjectId,
  name: string,
): Promise<ResolvedTemplate | null> {
  const own = await deps.templates.findByKeyOrName({ scope: 'project', projectId }, name);
  if (own) return fromStored(own);
  return resolveGlobalTemplate(deps, name);
}

/**
 * By name, without project overrides: the global template stored by the operator, then the one
 * shipped in code. For the platform's mails no project may reword (the console's).
 */
export async function resolveGlobalTemplate(
  deps: Pick<MailDeps, 'templates'>,
  name: string,
): Promise<ResolvedTemplate | null> {
  const global = await deps.templates.findByKeyOrName({ scope: 'global' }, name);
  if (global) return fromStored(global);
  const builtin = builtinTemplate(name);
  if (!builtin) return null;
  const content: MailContent = { subject: builtin.subject };
  if (builtin.html !== undefined) content.html = builtin.html;
  if (builtin.text !== undefined) content.text = builtin.text;
  return { key: builtin.key, source: builtin.kind, content };
}

/** By id: only this project's templates and global ones are visible. */
export async function resolveTemplateById(
  deps: Pick<MailDeps, 'templates'>,
  projectId: ProjectId,
  id: string,
): Promise<ResolvedTemplate | null> {
  if (!OBJECT_ID.test(id))
    throw errors.badRequest('INVALID_TEMPLATE_ID', '`templateId` must be a 24-hex ObjectId', [
      { path: 'templateId', message: 'must be 24 hexadecimal characters' },
    ]);
  const t = await deps.templates.findVisibleById(projectId, id.toLowerCase());
  return t ? fromStored(t) : null;
}

export const templateNotFound = () => errors.notFound('TEMPLATE_NOT_FOUND', 'Template not found');
