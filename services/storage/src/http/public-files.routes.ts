import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { errors, type Logger } from '@baas/common';
import type { FileDeps } from '../domain/files/deps';
import { readPublicFile } from '../domain/files/read-file';

/**
 * GET /files/:projectId/:name: the public URL of every uploaded file. The gateway forwards it
 * without a key (the assertion carries no project), so no tenant context is read here: the path
 * itself names the file.
 */
export function publicFileRoutes(deps: FileDeps, logger: Logger): Router {
  const r = Router();
  r.get('/:projectId/:name', async (req, res) => {
    const file = await readPublicFile(deps, req.params.projectId, req.params.name);
    const stream = req.method === 'HEAD' ? null : await file.open();
    if (req.method !== 'HEAD' && !stream) throw errors.notFound('FILE_NOT_FOUND', 'File not found');
    // setHeader, not res.set: express would append a charset to the stored type.
    for (const [k, v] of Object.entries(file.headers)) res.setHeader(k, v);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Cache-Control', 'public, max-age=60');
    if (!stream) {
      res.end();
      return;
    }
    await pipeline(stream, res).catch((err: unknown) => {
      logger.warn({ err, path: `${req.params.projectId}/${req.params.name}` }, 'file stream interrupted');
      res.destroy();
    });
  });
  // another method on a file's URL is no route (as anywhere else), not a missing file: a POST to
  // a file that is there answered 404 FILE_NOT_FOUND
  r.all('/:projectId/:name', () => {
    throw errors.routeNotFound();
  });
  r.use(() => {
    throw errors.notFound('FILE_NOT_FOUND', 'File not found');
  });
  return r;
}
