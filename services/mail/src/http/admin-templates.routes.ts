import { Router, type Request } from 'express';
import { adminProjectContext, jsonBody, parseInput, requireAdmin } from '@baas/common';
import type { MailDeps } from '../domain/deps';
import { templateBodySchema, type TemplateOwner } from '../domain/templates/template';
import {
  deleteTemplate,
  getTemplate,
  listTemplates,
  parseTemplateKey,
  saveTemplate,
} from '../domain/templates/manage-templates';
import { monthBucket } from '../domain/usage/buckets';

type OwnerOf = (req: Request) => TemplateOwner;

function templateRoutes(deps: MailDeps, ownerOf: OwnerOf): Router {
  const r = Router({ mergeParams: true });
  r.use(jsonBody('600kb'));
  r.get('/', async (req, res) => {
    res.json(await listTemplates(deps, ownerOf(req)));
  });
  r.get('/:key', async (req, res) => {
    const owner = ownerOf(req);
    res.json(await getTemplate(deps, owner, parseTemplateKey(req.params.key)));
  });
  r.put('/:key', async (req, res) => {
    const owner = ownerOf(req);
    const key = parseTemplateKey(req.params.key);
    const body = parseInput(templateBodySchema, req.body ?? {});
    const { created, template } = await saveTemplate(deps, owner, key, body);
    res.status(created ? 201 : 200).json(template);
  });
  r.delete('/:key', async (req, res) => {
    const owner = ownerOf(req);
    const data = await deleteTemplate(deps, owner, parseTemplateKey(req.params.key));
    res.json({ success: true, data, message: 'Template deleted' });
  });
  return r;
}

const projectOwner: OwnerOf = (req) => ({
  scope: 'project',
  projectId: adminProjectContext(req, (req.params as Record<string, string | undefined>).projectId).projectId,
});

const globalOwner: OwnerOf = (req) => {
  requireAdmin(req);
  return { scope: 'global' };
};

/** /api/admin/projects/:projectId/mail/... (project overrides and usage). */
export function adminProjectMailRoutes(deps: MailDeps): Router {
  const r = Router({ mergeParams: true });
  r.use('/templates', templateRoutes(deps, projectOwner));
  r.get('/usage', async (req, res) => {
    const ctx = adminProjectContext(req, (req.params as Record<string, string | undefined>).projectId);
    const now = deps.now();
    const monthlyLimit = ctx.settings?.limits?.mailMonthly ?? deps.limits.defaultMonthly;
    res.json({
      month: now.toISOString().slice(0, 7),
      monthlyUsage: await deps.usage.current(ctx.projectId, monthBucket(now)),
      monthlyLimit,
    });
  });
  return r;
}

/** /api/admin/mail/templates (global/system templates). */
export function adminGlobalMailRoutes(deps: MailDeps): Router {
  const r = Router();
  r.use('/templates', templateRoutes(deps, globalOwner));
  return r;
}
