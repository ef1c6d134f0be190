import { errors } from '@baas/common';
import { COLLECTION_NAME_RE, isReservedCollectionName } from '../collections/collection';

export const AGGREGATION_LIMITS = {
  /** Stages in the whole pipeline, sub-pipelines included (security notes #51: at most 20). */
  maxStages: 20,
  /** Sub-pipeline nesting ($facet / $lookup / $unionWith inside one another). */
  maxPipelineDepth: 10,
  /**
   * JSON nesting, in this walker's count: the deepest pipeline it accepts is the deepest body the
   * services' JSON parser accepts (`JSON_BODY_MAX_DEPTH`, 32 levels; tested), so a caller gets
   * the same bound in or out of HTTP.
   */
  maxJsonDepth: 31,
};

const ALLOWED_STAGES = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$group',
  '$sort',
  '$limit',
  '$skip',
  '$count',
  '$unwind',
  '$bucket',
  '$bucketAuto',
  '$sortByCount',
  '$replaceRoot',
  '$replaceWith',
  '$sample',
  '$setWindowFields',
  '$densify',
  '$fill',
  '$facet',
  '$redact',
  '$lookup',
  '$unionWith',
  '$graphLookup',
  '$geoNear',
  '$search',
]);
/** They must be the first stage, so the RLS `$match` goes right after them. */
export const FIRST_ONLY_STAGES = new Set(['$geoNear', '$search']);
/** Writes, server-side JavaScript and server introspection: refused at any depth. */
const BLOCKED_KEYS = new Set([
  '$out',
  '$merge',
  '$where',
  '$function',
  '$accumulator',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$collStats',
  '$indexStats',
  '$planCacheStats',
  '$queryStats',
  '$changeStream',
  '$changeStreamSplitLargeEvent',
  '$documents',
  '$listSearchIndexes',
  '$listSampledQueries',
  '$shardedDataDistribution',
  '$querySettings',
  '$searchMeta',
  '$vectorSearch',
  '$listClusterCatalog',
  '$listCatalog',
]);
const BLOCKED_VARIABLES = ['$$USER_ROLES', '$$SEARCH_META', '$$CLUSTER_TIME'];
const LOOKUP_KEYS = new Set(['from', 'localField', 'foreignField', 'let', 'pipeline', 'as']);
const UNION_KEYS = new Set(['coll', 'pipeline']);

export type Stage = Record<string, unknown>;

function blocked(code: string, message: string): never {
  throw errors.badRequest(code, message);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every key and string anywhere below: blocked operators, internal stages, NUL, forbidden variables. */
function walkExpression(v: unknown, depth: number): void {
  if (depth > AGGREGATION_LIMITS.maxJsonDepth) blocked('PIPELINE_TOO_DEEP', 'Pipeline nested too deeply');
  if (typeof v === 'string') {
    if (BLOCKED_VARIABLES.some((b) => v.startsWith(b)))
      blocked('BLOCKED_OPERATOR', `Variable ${v.slice(0, 40)} is not allowed`);
    return;
  }
  if (Array.isArray(v)) {
    for (const x of v) walkExpression(x, depth + 1);
    return;
  }
  if (!isPlainObject(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (k.includes('\0')) blocked('BLOCKED_OPERATOR', 'Keys may not contain NUL');
    if (k === '__proto__') blocked('BLOCKED_OPERATOR', 'Key __proto__ is not allowed');
    if (BLOCKED_KEYS.has(k))
      blocked(k === '$out' || k === '$merge' ? 'BLOCKED_STAGE' : 'BLOCKED_OPERATOR', `${k} is not allowed`);
    if (k.startsWith('$_')) blocked('BLOCKED_OPERATOR', `${k.slice(0, 40)} is not allowed`);
    walkExpression(x, depth + 1);
  }
}

/** `from`/`coll` must be a plain name of this project's collections: no `{ db, coll }`, no `users`. */
function targetName(v: unknown, stage: string): string {
  if (typeof v !== 'string')
    blocked('CROSS_DATABASE_ACCESS', `${stage} must name a collection of this project as a plain string`);
  if (!COLLECTION_NAME_RE.test(v) || isReservedCollectionName(v))
    blocked('LOOKUP_FORBIDDEN', `${stage} cannot read '${v.slice(0, 64)}'`);
  return v;
}

interface Walk {
  stages: number;
  targets: Set<string>;
}

function validateStages(pipeline: unknown, depth: number, w: Walk, nested: boolean): void {
  if (!Array.isArray(pipeline)) blocked('INVALID_PIPELINE', 'pipeline must be an array of stages');
  if (depth > AGGREGATION_LIMITS.maxPipelineDepth)
    blocked('PIPELINE_TOO_DEEP', 'Sub-pipelines nested too deeply');
  pipeline.forEach((stage: unknown, index: number) => {
    w.stages++;
    if (w.stages > AGGREGATION_LIMITS.maxStages)
      blocked('PIPELINE_TOO_LONG', `At most ${AGGREGATION_LIMITS.maxStages} stages`);
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1)
      blocked('INVALID_PIPELINE', 'Each stage must be an object with exactly one stage operator');
    const [name, spec] = Object.entries(stage)[0] as [string, unknown];
    if (BLOCKED_KEYS.has(name) || name.startsWith('$_'))
      blocked(
        name === '$out' || name === '$merge' ? 'BLOCKED_STAGE' : 'BLOCKED_OPERATOR',
        `Stage ${name.slice(0, 40)} is not allowed`,
      );
    if (!ALLOWED_STAGES.has(name)) blocked('UNKNOWN_STAGE', `Stage ${name.slice(0, 40)} is not allowed`);
    if (FIRST_ONLY_STAGES.has(name) && (index !== 0 || nested))
      blocked('INVALID_PIPELINE', `${name} is only allowed as the first stage of the pipeline`);
    switch (name) {
      case '$facet': {
        if (!isPlainObject(spec)) blocked('INVALID_PIPELINE', '$facet takes an object of pipelines');
        for (const sub of Object.values(spec)) validateStages(sub, depth + 1, w, true);
        return;
      }
      case '$lookup': {
        if (!isPlainObject(spec)) blocked('INVALID_PIPELINE', '$lookup takes an object');
        for (const k of Object.keys(spec))
          if (!LOOKUP_KEYS.has(k)) blocked('INVALID_PIPELINE', `$lookup.${k.slice(0, 40)} is not supported`);
        w.targets.add(targetName(spec.from, '$lookup'));
        const { pipeline: sub, ...rest } = spec;
        walkExpression(rest, depth + 2);
        if (sub !== undefined) validateStages(sub, depth + 1, w, true);
        else if (spec.localField === undefined || spec.foreignField === undefined)
          blocked('INVALID_PIPELINE', '$lookup needs localField/foreignField or a pipeline');
        return;
      }
      case '$unionWith': {
        if (typeof spec === 'string') {
          w.targets.add(targetName(spec, '$unionWith'));
          return;
        }
        if (!isPlainObject(spec)) blocked('INVALID_PIPELINE', '$unionWith takes a name or an object');
        for (const k of Object.keys(spec))
          if (!UNION_KEYS.has(k))
            blocked('INVALID_PIPELINE', `$unionWith.${k.slice(0, 40)} is not supported`);
        w.targets.add(targetName(spec.coll, '$unionWith'));
        if (spec.pipeline !== undefined) validateStages(spec.pipeline, depth + 1, w, true);
        return;
      }
      case '$graphLookup': {
        if (!isPlainObject(spec)) blocked('INVALID_PIPELINE', '$graphLookup takes an object');
        w.targets.add(targetName(spec.from, '$graphLookup'));
        walkExpression(spec, depth + 2);
        return;
      }
      default:
        walkExpression(spec, depth + 2);
    }
  });
}

/**
 * Validates a client pipeline, recursively into every sub-pipeline and expression. Returns the
 * collections it reads besides its own (to be resolved and filtered by the caller's access).
 */
export function validatePipeline(pipeline: unknown): { targets: Set<string> } {
  const w: Walk = { stages: 0, targets: new Set() };
  validateStages(pipeline, 0, w, false);
  return { targets: w.targets };
}
