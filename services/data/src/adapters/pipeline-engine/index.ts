import type { Doc } from './bson';
import type { Clock, EngineBounds, EngineUsage } from './budget';
import type { Stage } from './context';

export { approxBytes, engineErrors, type EngineBounds, type EngineUsage } from './budget';
export type { Stage } from './context';

type Engine = typeof import('./evaluate');
let loaded: Engine | undefined;

/**
 * The engine is loaded on the first pipeline, not at boot: mingo (about 280 modules, some 3 MB
 * of heap) serves only aggregations and joins, which an idle data service, or one that only
 * reads and writes documents, never runs. The first pipeline of a process pays the load once.
 */
function engine(): Engine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous lazy load (see above)
  loaded ??= require('./evaluate') as Engine;
  return loaded;
}

export interface EngineOptions {
  /** Milliseconds, monotonic; tests inject a clock that advances on every reading. */
  clock?: Clock;
}

/**
 * Evaluates a (validated) client pipeline in process with MongoDB's semantics, for stores that
 * cannot run it natively. `input` and every collection a join names are the rows the caller may
 * read (already filtered by its access rules); `_id` stays as given (hex string or ObjectId) and
 * dates stay Dates. A bound exceeded is an AppError (4xx), never a partial answer. The inputs are
 * not modified.
 */
export function evaluatePipeline(
  input: Doc[],
  pipeline: Stage[],
  collections: ReadonlyMap<string, Doc[]>,
  bounds: EngineBounds,
  options: EngineOptions = {},
): { rows: Doc[]; usage: EngineUsage } {
  return engine().evaluate(input, pipeline, collections, bounds, options.clock ?? (() => performance.now()));
}

/** {@link evaluatePipeline}, rows only. */
export function runPipeline(
  input: Doc[],
  pipeline: Stage[],
  collections: ReadonlyMap<string, Doc[]>,
  bounds: EngineBounds,
  options: EngineOptions = {},
): Doc[] {
  return evaluatePipeline(input, pipeline, collections, bounds, options).rows;
}

/** The pipeline with the result cap every store applies: the first `maxOutputRows` rows. */
export function capped(pipeline: Stage[], bounds: { maxOutputRows: number }): Stage[] {
  return [...pipeline, { $limit: bounds.maxOutputRows }];
}
