import { errors } from '@baas/common';
import type { DataDeps } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { checkSentToken, writeAccess, type Caller } from './access';
import { documentEvents } from './document-events';
import { and, documentId, documentNotFound } from './filters';
import { eq } from './query';
import { loadWritable } from './update-document';
import { documentView } from './views';

/** Soft delete: the document goes to the trash (hidden, restorable until the janitor purges it). */
export async function trashDocument(
  deps: DataDeps,
  caller: Caller,
  name: string,
  rawId: string,
): Promise<{ id: string }> {
  const def = await requireCollection(deps, caller.projectId, name);
  const access = await writeAccess(deps, caller, def);
  const { doc, coll, guard } = await loadWritable(deps, caller, def, access, rawId);
  const now = (deps.now ?? (() => new Date()))();
  const updated = await coll.update(
    guard,
    { isDeleted: true, deletedAt: now, updatedAt: now },
    documentEvents(caller, 'document.trashed', name, doc._id),
  );
  if (!updated) throw documentNotFound();
  return { id: doc._id };
}

/**
 * Restore from the trash (secret key only). Restoring a document that is not in the trash is a
 * harmless no-op that returns it; a purged or unknown document is 404.
 */
export async function restoreDocument(
  deps: DataDeps,
  caller: Caller,
  name: string,
  rawId: string,
): Promise<{ doc: Record<string, unknown>; restored: boolean }> {
  const def = await requireCollection(deps, caller.projectId, name);
  if (caller.keyType !== 'secret') throw errors.secretKeyRequired();
  await checkSentToken(deps, caller);
  const id = documentId(rawId);
  const coll = deps.documents.forProject(caller.projectId).collection(def.name);
  const now = (deps.now ?? (() => new Date()))();
  const restored = await coll.update(
    and(eq('_id', id), eq('isDeleted', true)),
    { isDeleted: false, deletedAt: null, updatedAt: now },
    documentEvents(caller, 'document.restored', name, id),
  );
  if (restored) {
    return { doc: documentView(restored), restored: true };
  }
  const active = await coll.findOne(and(eq('_id', id), eq('isDeleted', false)));
  if (!active) throw documentNotFound();
  return { doc: documentView(active), restored: false };
}
