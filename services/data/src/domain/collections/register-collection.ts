import { createEvent, errors, type ProjectId } from '@baas/common';
import type { DataDeps } from '../../ports';
import {
  RLS_DISABLED,
  checkSchemaSemantics,
  collectionView,
  isValidCollectionName,
  type CollectionView,
  type RegisterBody,
} from './collection';

/**
 * Registers or replaces a collection. Indexes are created before the definition is saved, so a
 * new unique constraint that existing documents violate fails (400 DUPLICATE_VALUE) and changes
 * nothing. A schema change applies to later writes; existing documents are not re-validated.
 */
export async function registerCollection(
  deps: DataDeps,
  projectId: ProjectId,
  name: string,
  body: RegisterBody,
  requestId: string,
): Promise<{ created: boolean; collection: CollectionView }> {
  if (name.toLowerCase() === 'users')
    throw errors.badRequest(
      'RESERVED_COLLECTION_NAME',
      'The users collection is reserved; use /api/userAuth/* and users-schema',
    );
  if (!isValidCollectionName(name))
    throw errors.badRequest(
      'INVALID_COLLECTION_NAME',
      'Collection names start with a letter, use letters, digits, _ or - (at most 64) and may not start with "system"',
    );
  const rls = body.rls ?? RLS_DISABLED;
  const schema = body.schema ?? null;
  checkSchemaSemantics(schema, rls);
  const existing = await deps.catalogue.get(projectId, name);
  const now = (deps.now ?? (() => new Date()))();
  const def = { projectId, name, schema, rls, createdAt: existing?.createdAt ?? now, updatedAt: now };
  await deps.documents.forProject(projectId).prepare(def);
  const created = await deps.catalogue.save(def, [
    createEvent('collection.registered', projectId, { collection: name }, { requestId }),
  ]);
  return { created, collection: collectionView(def) };
}
