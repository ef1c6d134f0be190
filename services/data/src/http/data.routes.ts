import { Router, type Request, type Response } from 'express';
import { jsonBody } from '@baas/common';
import type { DataDeps } from '../ports';
import type { Caller } from '../domain/documents/access';
import { getDocument, listDocuments } from '../domain/documents/read-documents';
import { insertDocument } from '../domain/documents/insert-document';
import { updateDocument } from '../domain/documents/update-document';
import { restoreDocument, trashDocument } from '../domain/documents/trash-document';
import { aggregate } from '../domain/aggregation/aggregate';
import { adminCallerOf, callerOf, queryParam, rawQuery } from './caller';
import { DOCUMENT_BODY_LIMIT_BYTES } from './hot-routes';

/** Document bodies (the hot routes read theirs under the same bound); pipelines are held to a smaller size. */
const DOCUMENT_BODY_LIMIT = DOCUMENT_BODY_LIMIT_BYTES;
const PIPELINE_BODY_LIMIT = '64kb';

/**
 * Thin handlers over the document use cases, for whoever `caller` says is calling: mounted at
 * `/api/data` for a project key and at `/api/admin/projects/:projectId/documents` for the admin.
 */
function documentRoutes(deps: DataDeps, caller: (req: Request) => Caller): Router {
  const r = Router({ mergeParams: true });
  r.get('/:collectionName', async (req, res) => {
    const data = await listDocuments(deps, caller(req), String(req.params.collectionName), rawQuery(req));
    res.json({ success: true, data, message: 'Documents retrieved' });
  });
  r.post('/:collectionName', jsonBody(DOCUMENT_BODY_LIMIT), async (req, res) => {
    res
      .status(201)
      .json(await insertDocument(deps, caller(req), String(req.params.collectionName), req.body));
  });
  r.get('/:collectionName/:id', async (req, res) => {
    res.json(
      await getDocument(
        deps,
        caller(req),
        String(req.params.collectionName),
        String(req.params.id),
        queryParam(req, 'include_deleted'),
      ),
    );
  });
  const update = async (req: Request, res: Response) => {
    const data = await updateDocument(
      deps,
      caller(req),
      String(req.params.collectionName),
      String(req.params.id),
      req.body,
    );
    res.json({ success: true, message: 'Updated', data });
  };
  r.put('/:collectionName/:id', jsonBody(DOCUMENT_BODY_LIMIT), update);
  r.patch('/:collectionName/:id', jsonBody(DOCUMENT_BODY_LIMIT), update);
  r.delete('/:collectionName/:id', async (req, res) => {
    const data = await trashDocument(
      deps,
      caller(req),
      String(req.params.collectionName),
      String(req.params.id),
    );
    res.json({ success: true, data, message: 'Document moved to trash' });
  });
  r.post('/:collectionName/:id/restore', async (req, res) => {
    const { doc, restored } = await restoreDocument(
      deps,
      caller(req),
      String(req.params.collectionName),
      String(req.params.id),
    );
    res.json({
      success: true,
      data: doc,
      message: restored ? 'Document restored' : 'Document is not in the trash',
    });
  });
  return r;
}

/** `/api/data/*`: a project key's documents, and aggregation. */
export function dataRoutes(deps: DataDeps): Router {
  const caller = (req: Request) => callerOf(req, deps.limits.defaultDocumentQuota);
  // One router on the hot path, not one nested in another (no document route is a POST of two
  // segments, so the order does not matter).
  const r = documentRoutes(deps, caller);
  r.post('/:collectionName/aggregate', jsonBody(PIPELINE_BODY_LIMIT), async (req, res) => {
    const data = await aggregate(
      deps,
      caller(req),
      String(req.params.collectionName),
      req.body,
      queryParam(req, 'include_deleted'),
    );
    res.json({ success: true, data, message: 'Aggregation completed' });
  });
  return r;
}

/**
 * `/api/admin/projects/:projectId/documents/*` (the gateway checked the admin token and the
 * project): the same handlers and use cases, acting as the project's secret key, audited.
 */
export function adminDocumentRoutes(deps: DataDeps): Router {
  return documentRoutes(deps, (req) => adminCallerOf(req, deps.limits.defaultDocumentQuota));
}
