import { Router, type Request } from 'express';
import {
  adminListQuery,
  adminProjectContext,
  auditSource,
  parseInput,
  timeKeysetRequest,
} from '@baas/common';
import type { FileDeps } from '../domain/files/deps';
import type { FileChangeContext } from '../domain/files/file-events';
import { listFiles } from '../domain/files/list-files';
import { deleteFile } from '../domain/files/delete-file';
import { answerUpload } from './multipart-upload';

/** The project of an admin request, acting as the platform admin (its changes are audited). */
function adminContext(req: Request): FileChangeContext & { quotaBytes?: number } {
  const ctx = adminProjectContext(req, String(req.params.projectId));
  return {
    projectId: ctx.projectId,
    requestId: ctx.requestId,
    audit: auditSource(req),
    quotaBytes: ctx.settings?.limits?.storageBytes,
  };
}

/**
 * `/api/admin/projects/:projectId/files[/:name]` (the gateway checked the admin token and the
 * project): list, upload and delete with the same use cases, limits and quota as a project key.
 */
export function adminFileRoutes(deps: FileDeps): Router {
  const r = Router();
  r.get('/:projectId/files', async (req, res) => {
    const ctx = adminProjectContext(req, req.params.projectId);
    const query = parseInput(adminListQuery, req.query, 'Invalid query parameter');
    const data = await listFiles(deps, ctx.projectId, timeKeysetRequest(query));
    res.json({ success: true, data, message: 'Files' });
  });
  r.post('/:projectId/files', async (req, res) => {
    await answerUpload(deps, req, res, adminContext(req));
  });
  r.delete('/:projectId/files/:name', async (req, res) => {
    const ctx = adminContext(req);
    const path = `${ctx.projectId}/${req.params.name}`;
    await deleteFile(deps, ctx, path);
    res.json({ success: true, data: { path }, message: 'File deleted successfully' });
  });
  return r;
}
