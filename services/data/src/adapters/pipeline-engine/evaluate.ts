import type { Doc } from './bson';
import { Budget, engineErrors, type Clock, type EngineBounds, type EngineUsage } from './budget';
import { refuseScripts, type Stage } from './context';
import { chargingTo, engineOperators } from './operators';
import { runStages } from './run-stages';

/** The engine proper (mingo and the operators built on it); index.ts loads it on first use. */
export function evaluate(
  input: Doc[],
  pipeline: Stage[],
  collections: ReadonlyMap<string, Doc[]>,
  bounds: EngineBounds,
  clock: Clock,
): { rows: Doc[]; usage: EngineUsage } {
  const budget = new Budget(bounds, clock);
  budget.documents(input.length, 'input');
  budget.measure(input, 'input');
  for (const docs of collections.values()) {
    budget.documents(docs.length, 'joined collection');
    budget.measure(docs, 'joined collection');
  }
  refuseScripts(pipeline);
  const operators = engineOperators();
  const rows = chargingTo(budget, () =>
    runStages(input, pipeline, { budget, collections, variables: {}, operators }),
  );
  if (rows.length > bounds.maxOutputRows) throw engineErrors.tooManyRows(bounds.maxOutputRows);
  return { rows, usage: budget.usage };
}
