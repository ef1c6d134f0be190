import { Context } from 'mingo/core';
import * as accumulatorOps from 'mingo/operators/accumulator';
import * as expressionOps from 'mingo/operators/expression';
import * as pipelineOps from 'mingo/operators/pipeline';
import * as projectionOps from 'mingo/operators/projection';
import * as queryOps from 'mingo/operators/query';
import * as windowOps from 'mingo/operators/window';
import type { Budget } from './budget';
import { guardedOperators } from './guarded-operators';
import { mongoSemantics } from './mongo-semantics';

export type Operators = NonNullable<Parameters<typeof Context.init>[0]>;

/**
 * The budget of the evaluation running now. An evaluation is synchronous from its first stage to
 * its last (see evaluate.ts), so a process runs one at a time and the slot cannot be another's.
 */
let running: Budget | undefined;

function charge(n: number, operator: string): void {
  if (!running) throw new Error(`${operator} ran outside an evaluation`);
  running.chargeExpression(n, operator);
}

/** Runs `evaluation` (synchronous) with the guarded operators charging `budget`. */
export function chargingTo<T>(budget: Budget, evaluation: () => T): T {
  const outer = running;
  running = budget;
  try {
    return evaluation();
  } finally {
    running = outer;
  }
}

let built: Context | undefined;

/**
 * mingo's operators with the engine's replacements in front. mingo's `Context.from` keeps the
 * first definition of a name, and its top-level `Aggregator` always merges its own operators
 * first, so the engine builds the whole context itself and runs mingo's base Aggregator with it.
 * Built once per process and never changed (mingo copies a context it is given): merging the
 * ~300 operators, read through the modules' export getters, was ~120 µs of every pipeline.
 */
export function engineOperators(): Context {
  if (built) return built;
  const semantics = mongoSemantics();
  built = Context.init({
    accumulator: { ...accumulatorOps, ...semantics.accumulator },
    expression: { ...expressionOps, ...semantics.expression, ...guardedOperators(charge) },
    pipeline: pipelineOps,
    projection: projectionOps,
    query: { ...queryOps, ...semantics.query },
    window: windowOps,
  });
  return built;
}
