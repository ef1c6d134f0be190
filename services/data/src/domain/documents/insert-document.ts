import { ObjectId } from 'mongodb';
import { createEvent, errors } from '@baas/common';
import type { DataDeps, StoredDoc } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { writeAccess, type Caller } from './access';
import { sanitizeInsert } from './sanitize';
import { validateDocument } from './schema-validation';
import { documentView } from './views';

/**
 * Inserts a document. With a publishable key (RLS + token) the owner field is the token's user:
 * filled in when omitted, 403 when it names someone else. The project's document quota is
 * reserved atomically before the write and released if the write fails.
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
    _id: new ObjectId(),
    ...valid,
    isDeleted: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };

  if (!(await deps.quota.reserve(caller.projectId, caller.documentQuota)))
    throw errors.quotaExceeded(`Document quota of ${caller.documentQuota} reached for this project`);
  const event = createEvent(
    'document.created',
    caller.projectId,
    { collection: name, documentId: doc._id.toHexString() },
    { requestId: caller.requestId },
  );
  let stored: StoredDoc;
  try {
    stored = await deps.documents.forProject(caller.projectId).collection(name).insert(doc, [event]);
  } catch (e) {
    await deps.quota.release(caller.projectId, 1);
    throw e;
  }
  deps.outbox.afterWrite(caller.projectId, name, doc._id);
  return documentView(stored);
}
