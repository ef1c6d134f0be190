import { Router } from 'express';
import { jsonBody } from '@baas/common';
import type { DataDeps } from '../ports';
import { getDocument, listDocuments } from '../domain/documents/read-documents';
import { insertDocument } from '../domain/documents/insert-document';
import { updateDocument } from '../domain/documents/update-document';
import { restoreDocument, trashDocument } from '../domain/documents/trash-document';
import { aggregate } from '../domain/aggregation/aggregate';
import { callerOf, queryParam, rawQuery } from './caller';

/** Document bodies; pipelines are held to a smaller size. */
const DOCUMENT_BODY_LIMIT = '256kb';
const PIPELINE_BODY_LIMIT = '64kb';

/** `/api/data/*`: thin handlers over the document use cases. */
export function dataRoutes(deps: DataDeps): Router {
  const r = Router();
  const caller = (req: Parameters<typeof callerOf>[0]) => callerOf(req, deps.limits.defaultDocumentQuota);

  r.get('/:collectionName', async (req, res) => {
    const data = await listDocuments(deps, caller(req), String(req.params.collectionName), rawQuery(req));
    res.json({ success: true, data, message: 'Documents retrieved' });
  });
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
  const update = async (req: Parameters<typeof callerOf>[0], res: import('express').Response) => {
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
