import { errors } from '@baas/common';
import { parseDocumentId, type DocumentId } from './document-id';
import { eq, type Condition } from './query';

/** A malformed id names no document: 404, exactly like a missing one. */
export function documentId(raw: string): DocumentId {
  const id = parseDocumentId(raw);
  if (!id) throw documentNotFound();
  return id;
}

export function documentNotFound() {
  return errors.notFound('DOCUMENT_NOT_FOUND', 'Document not found');
}

/** Trashed documents are hidden unless asked for (adapters hide their own bookkeeping always). */
export function visibility(includeDeleted: boolean): Condition {
  return includeDeleted ? { op: 'and', conditions: [] } : eq('isDeleted', false);
}

export { and } from './query';
