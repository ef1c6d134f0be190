import { errors } from '@baas/common';
import type { AggregationBounds, DataDeps } from '../../ports';
import { requireCollection } from '../collections/manage-collections';
import { readScope, type Caller } from '../documents/access';
import { and, visibility } from '../documents/filters';
import { parseBool } from '../documents/list-query';
import type { Condition } from '../documents/query';
import { rowView } from '../documents/views';
import { reviveExtendedJson } from './extended-json';
import { validatePipeline, type Stage } from './validate-pipeline';

export const AGGREGATION_MAX_ROWS = 1000;
/** Documents one aggregation may read, over every collection it reaches (in-process evaluation). */
export const AGGREGATION_MAX_INPUT_DOCUMENTS = 50_000;
export const AGGREGATION_MAX_WORKING_DOCUMENTS = 200_000;
export const AGGREGATION_MAX_WORKING_BYTES = 64 * 1024 * 1024;

/**
 * Runs a client pipeline on one collection. Every collection it reads (itself, and any
 * `$lookup`/`$unionWith`/`$graphLookup` target, which must be registered in the same project) is
 * limited to what the caller may read (RLS scope) and to live documents (unless
 * include_deleted), so no stage can reach another tenant or another user's private documents.
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

  const scopes = new Map<string, Condition>();
  scopes.set(name, and(visibility(includeDeleted), await readScope(deps, caller, def)));
  for (const target of targets) {
    if (scopes.has(target)) continue;
    const tdef = await deps.catalogue.get(caller.projectId, target);
    if (!tdef)
      throw errors.badRequest(
        'LOOKUP_FORBIDDEN',
        `'${target}' is not a registered collection of this project`,
      );
    scopes.set(target, and(visibility(includeDeleted), await readScope(deps, caller, tdef)));
  }
  const bounds: AggregationBounds = {
    maxInputDocuments: AGGREGATION_MAX_INPUT_DOCUMENTS,
    maxOutputRows: AGGREGATION_MAX_ROWS,
    maxWorkingDocuments: AGGREGATION_MAX_WORKING_DOCUMENTS,
    maxWorkingBytes: AGGREGATION_MAX_WORKING_BYTES,
    timeMs: deps.limits.queryMaxTimeMs,
  };
  const rows = await deps.documents
    .forProject(caller.projectId)
    .collection(name)
    .aggregate(reviveExtendedJson(pipeline) as Stage[], (c) => scopes.get(c) as Condition, targets, bounds);
  return rows.map(rowView);
}
