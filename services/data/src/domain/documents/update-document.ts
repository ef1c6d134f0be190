import { errors } from '@baas/common';
import type { DataDeps } from '../../ports';
import type { CollectionDef } from '../collections/collection';
import { requireCollection } from '../collections/manage-collections';
import { readScope, writeAccess, type Caller, type WriteAccess } from './access';
import { documentEvents } from './document-events';
import { and, documentId, documentNotFound, visibility } from './filters';
import { eq, type Condition } from './query';
import { sanitizeUpdate } from './sanitize';
import { applySet, getPath, validateDocument } from './schema-validation';
import { documentView } from './views';

/**
 * The document a write may touch, or why not: under RLS with a publishable key, a document of
 * another user is 404 where the caller cannot even read it (private) and 403 where it is public.
 */
export async function loadWritable(
  deps: DataDeps,
  caller: Caller,
  def: CollectionDef,
  access: WriteAccess,
  rawId: string,
) {
  const id = documentId(rawId);
  const scope = await readScope(deps, caller, def);
  const coll = deps.documents.forProject(caller.projectId).collection(def.name);
  const doc = await coll.findOne(and(eq('_id', id), visibility(false), scope));
  if (!doc) throw documentNotFound();
  if (access.kind === 'owner' && doc[access.ownerField] !== access.userId)
    throw errors.forbidden('NOT_DOCUMENT_OWNER', 'Only the owner of this document can change it');
  // The write re-checks what was decided here, so a concurrent change cannot slip past it.
  const checks: Condition[] = [eq('_id', id), eq('isDeleted', false)];
  if (def.rls.enabled) {
    const owner = doc[def.rls.ownerField];
    checks.push(eq(def.rls.ownerField, typeof owner === 'string' ? owner : null));
  }
  const guard = and(...checks);
  return { doc, coll, guard };
}

/** PUT and PATCH: `$set` of the body's paths (dot-notation reaches nested fields); the owner field never changes. */
export async function updateDocument(
  deps: DataDeps,
  caller: Caller,
  name: string,
  rawId: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const def = await requireCollection(deps, caller.projectId, name);
  const access = await writeAccess(deps, caller, def);
  const set = sanitizeUpdate(body);
  const { doc, coll, guard } = await loadWritable(deps, caller, def, access, rawId);

  if (def.rls.enabled) {
    const owner = def.rls.ownerField;
    for (const path of Object.keys(set)) {
      if (path !== owner && !path.startsWith(`${owner}.`)) continue;
      // Re-sending the current owner unchanged is harmless (a client saving back what it read).
      if (path === owner && typeof set[path] === 'string' && set[path] === doc[owner]) {
        delete set[path];
        continue;
      }
      throw errors.forbidden('OWNER_FIELD_IMMUTABLE', 'Owner field immutable');
    }
  }

  const merged = validateDocument(def.schema, applySet(doc, set));
  const coerced: Record<string, unknown> = {};
  for (const path of Object.keys(set)) coerced[path] = getPath(merged, path);
  coerced.updatedAt = (deps.now ?? (() => new Date()))();
  const updated = await coll.update(
    guard,
    coerced,
    documentEvents(caller, 'document.updated', name, doc._id),
  );
  if (!updated) throw documentNotFound();
  return documentView(updated);
}
