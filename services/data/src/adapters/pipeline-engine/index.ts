import type { Doc } from './bson';
import { Budget, engineErrors, type Clock, type EngineBounds, type EngineUsage } from './budget';
import { refuseScripts, type Stage } from './context';
import { engineOperators } from './operators';
import { runStages } from './run-stages';

export { approxBytes, engineErrors, type EngineBounds, type EngineUsage } from './budget';
export type { Stage } from './context';

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
  const budget = new Budget(bounds, options.clock ?? (() => performance.now()));
  budget.documents(input.length, 'input');
  budget.measure(input, 'input');
  for (const docs of collections.values()) {
    budget.documents(docs.length, 'joined collection');
    budget.measure(docs, 'joined collection');
  }
  refuseScripts(pipeline);
  const rows = runStages(input, pipeline, {
    budget,
    collections,
    variables: {},
    operators: engineOperators(budget),
  });
  if (rows.length > bounds.maxOutputRows) throw engineErrors.tooManyRows(bounds.maxOutputRows);
  return { rows, usage: budget.usage };
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
