import { Router, type Request, type RequestHandler } from 'express';
import {
  adminListQuery,
  adminProjectContext,
  auditSource,
  jsonBody,
  parseInput,
  requireAdmin,
  timeKeysetRequest,
} from '@baas/common';
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
import { previewBodySchema, previewTemplate } from '../domain/templates/preview-template';
import { sendTestMail, testSendSchema } from '../domain/mail/send-test-mail';
import { listMessages } from '../domain/mail/list-messages';

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

/** POST .../preview: renders a template without saving or sending it, once `allow` has passed. */
function previewRoute(allow: (req: Request) => unknown): RequestHandler {
  return async (req, res) => {
    allow(req);
    const input = parseInput(previewBodySchema, req.body ?? {});
    const { subject, html, text } = await previewTemplate(input);
    res.json({
      success: true,
      data: { subject, html: html ?? null, text: text ?? null },
      message: 'Preview',
    });
  };
}

const projectOf = (req: Request) =>
  adminProjectContext(req, (req.params as Record<string, string | undefined>).projectId);

const projectOwner: OwnerOf = (req) => ({ scope: 'project', projectId: projectOf(req).projectId });

const globalOwner: OwnerOf = (req) => {
  requireAdmin(req);
  return { scope: 'global' };
};

/**
 * /api/admin/projects/:projectId/mail/... (project overrides, previews, test sends, the sent-mail
 * log and usage; the gateway checked the admin token and the project).
 */
export function adminProjectMailRoutes(deps: MailDeps): Router {
  const r = Router({ mergeParams: true });
  r.post('/templates/:key/test', jsonBody('64kb'), async (req, res) => {
    const ctx = projectOf(req);
    const key = parseTemplateKey(String(req.params.key));
    const input = parseInput(testSendSchema, req.body ?? {});
    const data = await sendTestMail(
      deps,
      {
        projectId: ctx.projectId,
        requestId: ctx.requestId,
        monthlyLimit: ctx.settings?.limits?.mailMonthly,
        audit: auditSource(req),
      },
      key,
      input,
    );
    res.json({ success: true, data, message: 'Test mail sent' });
  });
  r.use('/templates', templateRoutes(deps, projectOwner));
  r.post('/preview', jsonBody('600kb'), previewRoute(projectOf));
  r.get('/messages', async (req, res) => {
    const ctx = projectOf(req);
    const query = parseInput(adminListQuery, req.query, 'Invalid query parameter');
    const data = await listMessages(deps, ctx.projectId, timeKeysetRequest(query));
    res.json({ success: true, data, message: 'Sent mail' });
  });
  r.get('/usage', async (req, res) => {
    const ctx = projectOf(req);
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

/**
 * /api/admin/mail/templates (global/system templates), /api/admin/mail/preview (theirs) and
 * /api/admin/mail/messages (the log of the platform's mails of no project).
 */
export function adminGlobalMailRoutes(deps: MailDeps): Router {
  const r = Router();
  r.use('/templates', templateRoutes(deps, globalOwner));
  r.post('/preview', jsonBody('600kb'), previewRoute(requireAdmin));
  r.get('/messages', async (req, res) => {
    requireAdmin(req);
    const query = parseInput(adminListQuery, req.query, 'Invalid query parameter');
    const data = await listMessages(deps, null, timeKeysetRequest(query));
    res.json({ success: true, data, message: 'Sent mail' });
  });
  return r;
}
