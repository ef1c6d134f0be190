import { errors } from '@baas/common';
import type { MailDeps } from '../deps';
import { prepareTemplate } from './compile';
import { TEMPLATE_KEY, templateView, type TemplateBody, type TemplateOwner } from './template';
import { templateNotFound } from './resolve-template';

export function parseTemplateKey(raw: string | undefined): string {
  if (raw === undefined || !TEMPLATE_KEY.test(raw))
    throw errors.validation('Invalid template key', [
      {
        path: 'key',
        message: 'letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit',
      },
    ]);
  return raw;
}

/** Creates or replaces a template after validating it; `created` tells 201 from 200. */
export async function saveTemplate(
  deps: Pick<MailDeps, 'templates'>,
  owner: TemplateOwner,
  key: string,
  body: TemplateBody,
) {
  const content = await prepareTemplate(key, body);
  const { template, created } = await deps.templates.save(owner, key, content);
  return { created, template: templateView(template) };
}

export async function getTemplate(deps: Pick<MailDeps, 'templates'>, owner: TemplateOwner, key: string) {
  const t = await deps.templates.findByKey(owner, key);
  if (!t) throw templateNotFound();
  return templateView(t);
}

export async function listTemplates(deps: Pick<MailDeps, 'templates'>, owner: TemplateOwner) {
  return (await deps.templates.list(owner)).map(templateView);
}

export async function deleteTemplate(deps: Pick<MailDeps, 'templates'>, owner: TemplateOwner, key: string) {
  const t = await deps.templates.delete(owner, key);
  if (!t) throw templateNotFound();
  return { id: t.id, key: t.key };
}
