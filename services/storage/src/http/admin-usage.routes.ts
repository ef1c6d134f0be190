import { Router } from 'express';
import { adminProjectContext } from '@baas/common';
import type { FileDeps } from '../domain/files/deps';
import { storageUsage } from '../domain/usage/storage-usage';

/** GET /api/admin/projects/:projectId/storage/usage (the gateway checked the admin token and the project). */
export function adminUsageRoutes(deps: FileDeps): Router {
  const r = Router();
  r.get('/:projectId/storage/usage', async (req, res) => {
    const ctx = adminProjectContext(req, req.params.projectId);
    const data = await storageUsage(deps, ctx.projectId, ctx.settings?.limits?.storageBytes);
    res.json({ success: true, data, message: 'Storage usage' });
  });
  return r;
}
