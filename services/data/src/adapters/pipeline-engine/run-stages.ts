import { AppError } from '@baas/common';
import { cloneValue, isPlainObject, type Doc } from './bson';
import { engineErrors } from './budget';
import { runMingo, type RunContext, type Stage } from './context';
import { densifyCount, unwindCount, windowElements } from './estimates';
import { facet, graphLookup, lookup, unionWith } from './joins';
import { bucketAsGroup, OUTSIDE_BOUNDARIES, sortByCountAsGroup } from './rewrites';
import { addFields, count, densify, sample } from './simple-stages';
import { sortDocuments } from './sort';

/** Stages whose output is never larger than their input: no need to measure it again. */
const SHRINKING = new Set(['$match', '$limit', '$skip', '$sort', '$sample', '$count', '$unset', '$redact']);

function hasDottedPath(spec: unknown): boolean {
  if (typeof spec === 'string') return spec.includes('.');
  if (Array.isArray(spec)) return spec.some((s) => typeof s === 'string' && s.includes('.'));
  return isPlainObject(spec) && Object.keys(spec).some((k) => k.includes('.'));
}

/**
 * mingo writes into its input in these cases (found by the corpus's "inputs unchanged" check):
 * `$project`/`$unset` with a dotted path, `$unwind` with options. Their input is copied first, as
 * documents may be shared (join results, the caller's arrays, earlier facets).
 */
function mutatesInput(name: string, spec: unknown): boolean {
  if (name === '$project' || name === '$unset') return hasDottedPath(spec);
  return name === '$unwind' && isPlainObject(spec);
}

function stageOf(stage: Stage): [string, unknown] {
  const entries = Object.entries(stage);
  if (entries.length !== 1) throw engineErrors.failed('each stage must have exactly one operator');
  return entries[0] as [string, unknown];
}

/** Errors of the evaluation itself (bad arguments, values out of range) are the client's input. */
function asClientError(e: unknown): unknown {
  if (e instanceof AppError) return e;
  if (e instanceof RangeError) return engineErrors.valueTooLarge();
  if (e instanceof Error) return engineErrors.failed(e.message);
  return e;
}

function runStage(docs: Doc[], name: string, spec: unknown, ctx: RunContext): Doc[] {
  const { budget } = ctx;
  switch (name) {
    case '$geoNear':
    case '$search':
      throw engineErrors.unsupportedStage(name);
    case '$out':
    case '$merge':
      throw engineErrors.failed(`${name} is not allowed`);
    case '$lookup':
      return lookup(docs, spec, ctx, runStages);
    case '$graphLookup':
      return graphLookup(docs, spec, ctx);
    case '$unionWith':
      return unionWith(docs, spec, ctx, runStages);
    case '$facet':
      return facet(docs, spec, ctx, runStages);
    case '$bucket': {
      const rows = runStages(docs, bucketAsGroup(spec), ctx);
      if (rows.some((r) => r._id === OUTSIDE_BOUNDARIES))
        throw engineErrors.failed('$bucket found a value outside its boundaries and has no default');
      return rows;
    }
    case '$sortByCount':
      return runStages(docs, sortByCountAsGroup(spec), ctx);
    case '$sort':
      return sortDocuments(docs, spec);
    case '$count':
      return count(docs, spec);
    case '$sample':
      return sample(docs, spec);
    case '$addFields':
    case '$set':
      return addFields(docs, name, spec, ctx);
    case '$redact':
      // mingo leaves a pruned top-level document as undefined in its output.
      return runMingo(docs, { $redact: spec }, ctx).filter((d) => d !== undefined);
    case '$fill':
      return runMingo(docs, { $fill: spec }, ctx, true);
    case '$unwind':
      budget.documents(unwindCount(docs, spec), '$unwind');
      break;
    case '$densify':
      budget.documents(densifyCount(docs, spec), '$densify');
      return densify(docs, spec, ctx);
    case '$setWindowFields':
      budget.documents(docs.length + windowElements(docs, spec, ctx), '$setWindowFields');
      return runMingo(docs, { $setWindowFields: spec }, ctx, true);
    default:
  }
  const input = mutatesInput(name, spec) ? docs.map(cloneValue) : docs;
  return runMingo(input, { [name]: spec }, ctx);
}

/**
 * Runs stages one at a time. After each: the clock, the number of documents held and, when the
 * stage may have grown them, their approximate size. Sub-pipelines come back here with the same
 * budget, so a bound holds at any depth.
 */
export function runStages(docs: Doc[], stages: Stage[], ctx: RunContext): Doc[] {
  let current = docs;
  for (const stage of stages) {
    const [name, spec] = stageOf(stage);
    ctx.budget.startStage();
    try {
      current = runStage(current, name, spec, ctx);
    } catch (e) {
      throw asClientError(e);
    }
    ctx.budget.checkTime();
    ctx.budget.documents(current.length, name);
    if (!SHRINKING.has(name)) ctx.budget.measure(current, name);
  }
  return current;
}
