import { Router, type Request } from 'express';
import { adminProjectContext, auditSource, jsonBody, parseInput } from '@baas/common';
import type { DataDeps } from '../ports';
import { registerBodySchema } from '../domain/collections/collection';
import { registerCollection } from '../domain/collections/register-collection';
import { deleteCollection, getCollection, listCollections } from '../domain/collections/manage-collections';

function project(req: Request) {
  return adminProjectContext(req, String(req.params.projectId));
}

/** `/api/admin/projects/:projectId/collections[/:name]` (the gateway checked the admin token and the project). */
export function adminCollectionRoutes(deps: DataDeps): Router {
  const r = Router();
  r.use(jsonBody());
  r.get('/:projectId/collections', async (req, res) => {
    res.json(await listCollections(deps, project(req).projectId));
  });
  r.get('/:projectId/collections/:name', async (req, res) => {
    res.json(await getCollection(deps, project(req).projectId, req.params.name));
  });
  r.put('/:projectId/collections/:name', async (req, res) => {
    const ctx = project(req);
    const body = parseInput(registerBodySchema, req.body ?? {}, 'Invalid collection definition');
    const { created, collection } = await registerCollection(
      deps,
      ctx.projectId,
      req.params.name,
      body,
      auditSource(req),
    );
    res.status(created ? 201 : 200).json(collection);
  });
  r.delete('/:projectId/collections/:name', async (req, res) => {
    const ctx = project(req);
    await deleteCollection(deps, ctx.projectId, req.params.name, auditSource(req));
    res.json({ success: true, data: { name: req.params.name }, message: 'Collection deleted' });
  });
  return r;
}
