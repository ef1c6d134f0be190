import { Router } from 'express';
import { z } from 'zod';
import { bearerToken, jsonBody, parseInput, tenantContext } from '@baas/common';
import type { FileDeps } from '../domain/files/deps';
import { deleteFile } from '../domain/files/delete-file';
import { checkCallerToken } from '../domain/files/caller-token';
import { answerUpload } from './multipart-upload';

export const deleteSchema = z.object({ path: z.string().min(1).max(1024) });

/** POST /api/storage/upload and DELETE /api/storage/file (pk_live_ or sk_live_). */
export function storageRoutes(deps: FileDeps): Router {
  const r = Router();
  r.post('/upload', async (req, res) => {
    const ctx = tenantContext(req);
    await answerUpload(
      deps,
      req,
      res,
      { projectId: ctx.projectId, requestId: ctx.requestId, quotaBytes: ctx.settings.limits?.storageBytes },
      () => checkCallerToken(deps, ctx.projectId, bearerToken(req)),
    );
  });
  r.delete('/file', jsonBody('16kb'), async (req, res) => {
    const ctx = tenantContext(req);
    await checkCallerToken(deps, ctx.projectId, bearerToken(req));
    const { path } = parseInput(deleteSchema, req.body);
    await deleteFile(deps, ctx, path);
    res.json({ success: true, data: {}, message: 'File deleted successfully' });
  });
  return r;
}
