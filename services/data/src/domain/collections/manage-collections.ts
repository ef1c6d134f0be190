import { auditEvent, createEvent, errors, type AuditSource, type ProjectId } from '@baas/common';
import type { DataDeps } from '../../ports';
import { collectionView, isValidCollectionName, type CollectionDef, type CollectionView } from './collection';

export async function listCollections(deps: DataDeps, projectId: ProjectId): Promise<CollectionView[]> {
  return (await deps.catalogue.list(projectId)).map(collectionView);
}

/** The registered collection, or 404: data of an unregistered collection can be neither sent nor read. */
export async function requireCollection(
  deps: DataDeps,
  projectId: ProjectId,
  name: string,
): Promise<CollectionDef> {
  if (name.toLowerCase() === 'users') throw errors.usersCollectionReserved();
  const def = isValidCollectionName(name) ? await deps.catalogue.get(projectId, name) : null;
  if (!def) throw errors.notFound('COLLECTION_NOT_FOUND', `Collection '${name.slice(0, 64)}' not found`);
  return def;
}

export async function getCollection(
  deps: DataDeps,
  projectId: ProjectId,
  name: string,
): Promise<CollectionView> {
  return collectionView(await requireCollection(deps, projectId, name));
}

/** Unregisters a collection and drops its documents (trash included), releasing their quota. */
export async function deleteCollection(
  deps: DataDeps,
  projectId: ProjectId,
  name: string,
  source: AuditSource,
): Promise<void> {
  await requireCollection(deps, projectId, name);
  const removed = await deps.catalogue.remove(projectId, name, [
    createEvent('collection.deleted', projectId, { collection: name }, { requestId: source.requestId }),
    auditEvent(projectId, source, 'collection.deleted', { type: 'collection', id: name }),
  ]);
  if (!removed) throw errors.notFound('COLLECTION_NOT_FOUND', `Collection '${name}' not found`);
  await deps.documents.forProject(projectId).dropCollection(name);
}

/** On `project.deleted`: the project's documents, its catalogue entries and its quota counter go. */
export async function dropProjectData(deps: DataDeps, projectId: ProjectId): Promise<void> {
  await deps.documents.forProject(projectId).dropAll();
  await deps.catalogue.removeProject(projectId);
}
