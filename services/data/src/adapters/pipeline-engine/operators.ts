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
 * mingo's operators with the engine's replacements in front. mingo's `Context.from` keeps the
 * first definition of a name, and its top-level `Aggregator` always merges its own operators
 * first, so the engine builds the whole context itself and runs mingo's base Aggregator with it.
 */
export function engineOperators(budget: Budget): Context {
  const semantics = mongoSemantics();
  return Context.init({
    accumulator: { ...accumulatorOps, ...semantics.accumulator },
    expression: { ...expressionOps, ...semantics.expression, ...guardedOperators(budget) },
    pipeline: pipelineOps,
    projection: projectionOps,
    query: { ...queryOps, ...semantics.query },
    window: windowOps,
  });
}
