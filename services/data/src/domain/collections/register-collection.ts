import { auditEvent, createEvent, errors, type AuditSource, type ProjectId } from '@baas/common';
import type { DataDeps } from '../../ports';
import {
  RLS_DISABLED,
  checkSchemaSemantics,
  collectionView,
  isValidCollectionName,
  type CollectionView,
  type RegisterBody,
  type RlsConfig,
} from './collection';

/**
 * Registers or replaces a collection. Indexes are created before the definition is saved, so a
 * new unique constraint that existing documents violate fails (400 DUPLICATE_VALUE) and changes
 * nothing. A schema change applies to later writes; existing documents are not re-validated.
 *
 * An omitted `rls` keeps the collection's current setting (a new collection starts without RLS):
 * re-registering a private collection with only a new schema must never open its documents to
 * every key holder. Turning RLS off takes an explicit `{ enabled: false }` and is audited as
 * `collection.rls_disabled`; every registration writes one audit entry with the change.
 */
export async function registerCollection(
  deps: DataDeps,
  projectId: ProjectId,
  name: string,
  body: RegisterBody,
  source: AuditSource,
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
  // Read past the cache: the setting kept must be the stored one, not a copy up to 2 s old.
  const existing = await deps.catalogue.get(projectId, name, { fresh: true });
  const rls = body.rls ?? existing?.rls ?? RLS_DISABLED;
  const schema = body.schema ?? null;
  checkSchemaSemantics(schema, rls);
  const now = (deps.now ?? (() => new Date()))();
  const def = { projectId, name, schema, rls, createdAt: existing?.createdAt ?? now, updatedAt: now };
  await deps.documents.forProject(projectId).prepare(def);
  const rlsDisabled = existing?.rls.enabled === true && !rls.enabled;
  const audit = auditEvent(
    projectId,
    source,
    rlsDisabled ? 'collection.rls_disabled' : 'collection.registered',
    { type: 'collection', id: name },
    {
      created: !existing,
      rls: { before: existing ? rlsSummary(existing.rls) : null, after: rlsSummary(rls) },
      rlsKept: body.rls === undefined && existing !== null,
      schemaFields: schema?.fields.length ?? null,
    },
  );
  const created = await deps.catalogue.save(def, [
    createEvent('collection.registered', projectId, { collection: name }, { requestId: source.requestId }),
    audit,
  ]);
  return { created, collection: collectionView(def) };
}

function rlsSummary(rls: RlsConfig): RlsConfig {
  return { enabled: rls.enabled, mode: rls.mode, ownerField: rls.ownerField };
}
