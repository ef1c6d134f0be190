import { errors } from '@baas/common';
import type { DataDeps, StoredDoc } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { writeAccess, type Caller } from './access';
import { newDocumentId } from './document-id';
import { documentEvents } from './document-events';
import { sanitizeInsert } from './sanitize';
import { validateDocument } from './schema-validation';
import { documentView } from './views';

/**
 * Inserts a document. With a publishable key (RLS + token) the owner field is the token's user:
 * filled in when omitted, 403 when it names someone else. The project's document quota is
 * checked in the same atomic write.
 */
export async function insertDocument(
  deps: DataDeps,
  caller: Caller,
  name: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const def = await requireCollection(deps, caller.projectId, name);
  const access = await writeAccess(deps, caller, def);
  const fields = sanitizeInsert(body);
  if (access.kind === 'owner') {
    const given = fields[access.ownerField];
    if (given === undefined) fields[access.ownerField] = access.userId;
    else if (given !== access.userId)
      throw errors.forbidden('OWNER_MISMATCH', 'The owner field must be the id of the authenticated user');
  }
  const valid = validateDocument(def.schema, fields);
  const now = (deps.now ?? (() => new Date()))();
  const doc: StoredDoc = {
    _id: newDocumentId(now.getTime()),
    ...valid,
    isDeleted: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };

  const outcome = await deps.documents
    .forProject(caller.projectId)
    .collection(name)
    .insert(doc, documentEvents(caller, 'document.created', name, doc._id), caller.documentQuota);
  if (outcome === 'quota_exceeded')
    throw errors.quotaExceeded(`Document quota of ${caller.documentQuota} reached for this project`);
  return documentView(doc);
}
