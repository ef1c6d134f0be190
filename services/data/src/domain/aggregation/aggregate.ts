import { errors } from '@baas/common';
import type { DataDeps, Filter } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { readScope, type Caller } from '../documents/access';
import { and, visibility } from '../documents/filters';
import { parseBool } from '../documents/list-query';
import { rowView } from '../documents/views';
import { securePipeline } from './rewrite-pipeline';
import { validatePipeline, type Stage } from './validate-pipeline';

export const AGGREGATION_MAX_ROWS = 1000;

/**
 * Runs a client pipeline on one collection. Every collection it reads (itself, and any
 * `$lookup`/`$unionWith`/`$graphLookup` target, which must be registered in the same project) is
 * filtered by the caller's RLS scope and the trash rule, and the project's documents live in a
 * database of their own, so no stage can reach another tenant.
 */
export async function aggregate(
  deps: DataDeps,
  caller: Caller,
  name: string,
  body: unknown,
  includeDeletedRaw: string | undefined,
): Promise<Record<string, unknown>[]> {
  const def = await requireCollection(deps, caller.projectId, name);
  const includeDeleted = parseBool('include_deleted', includeDeletedRaw);
  const pipeline = (body as { pipeline?: unknown } | undefined)?.pipeline;
  if (!Array.isArray(pipeline))
    throw errors.badRequest('INVALID_PIPELINE', 'pipeline is required and must be an array of stages');
  const { targets } = validatePipeline(pipeline);

  const filters = new Map<string, Filter>();
  filters.set(name, and(visibility(includeDeleted), await readScope(deps, caller, def)));
  for (const target of targets) {
    if (filters.has(target)) continue;
    const tdef = await deps.catalogue.get(caller.projectId, target);
    if (!tdef)
      throw errors.badRequest(
        'LOOKUP_FORBIDDEN',
        `'${target}' is not a registered collection of this project`,
      );
    filters.set(target, and(visibility(includeDeleted), await readScope(deps, caller, tdef)));
  }
  const secured = securePipeline(
    pipeline as Stage[],
    name,
    (c) => filters.get(c) as Filter,
    AGGREGATION_MAX_ROWS,
  );
  const rows = await deps.documents
    .forProject(caller.projectId)
    .collection(name)
    .aggregate(secured, deps.limits.queryMaxTimeMs);
  return rows.map(rowView);
}
