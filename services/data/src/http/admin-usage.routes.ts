import { Router } from 'express';
import { adminProjectContext } from '@baas/common';
import type { DataDeps } from '../ports';
import { documentUsage } from '../domain/usage/document-usage';

/** GET /api/admin/projects/:projectId/data/usage (the gateway checked the admin token and the project). */
export function adminUsageRoutes(deps: DataDeps): Router {
  const r = Router();
  r.get('/:projectId/data/usage', async (req, res) => {
    const ctx = adminProjectContext(req, req.params.projectId);
    const data = await documentUsage(deps, ctx.projectId, ctx.settings?.limits?.documents);
    res.json({ success: true, data, message: 'Document usage' });
  });
  return r;
}
