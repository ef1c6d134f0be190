import { evalExpr } from 'mingo/core';
import { $concat, $concatArrays, $range, $replaceAll, $replaceOne } from 'mingo/operators/expression';
import type { Operators } from './operators';

/** Charges the running evaluation's budget for a value of about `n` bytes about to be built. */
export type Charge = (n: number, operator: string) => void;

type ExpressionOp = typeof $range;
type Options = Parameters<ExpressionOp>[2];

const literal = (v: unknown) => ({ $literal: v });

function countOccurrences(input: string, find: string): number {
  if (find === '') return input.length + 1;
  let n = 0;
  for (let i = input.indexOf(find); i >= 0; i = input.indexOf(find, i + find.length)) n++;
  return n;
}

/**
 * The expression operators that can build a value far larger than their input (`$range` from two
 * numbers, `$concatArrays` or `$concat` doubling inside `$reduce`, `$replaceAll`). One such
 * expression could exhaust the process's memory inside a single stage, before any check between
 * stages runs, so each of them evaluates its arguments, charges the size of the value it is about
 * to build to the budget, and only then lets mingo build it (from the already evaluated values).
 * They are built once per process: `charge` reaches the budget of the evaluation running now.
 */
export function guardedOperators(charge: Charge): Operators['expression'] {
  const range: ExpressionOp = (obj, expr, options: Options) => {
    const args = Array.isArray(expr) ? (evalExpr(obj, expr, options) as unknown[]) : [];
    const [start, end, step = 1] = args;
    if (typeof start === 'number' && typeof end === 'number' && typeof step === 'number' && step !== 0) {
      const n = Math.max(0, Math.ceil((end - start) / step));
      charge(n * 8, '$range');
    }
    return $range(obj, args.map(literal), options);
  };

  const concatArrays: ExpressionOp = (obj, expr, options: Options) => {
    const args = evalExpr(obj, expr, options);
    if (Array.isArray(args)) {
      let n = 0;
      for (const a of args) if (Array.isArray(a)) n += a.length;
      charge(n * 8, '$concatArrays');
      return $concatArrays(obj, args.map(literal), options);
    }
    return $concatArrays(obj, literal(args), options);
  };

  const concat: ExpressionOp = (obj, expr, options: Options) => {
    if (!Array.isArray(expr)) return $concat(obj, [expr], options);
    const args = evalExpr(obj, expr, options) as unknown[];
    let n = 0;
    for (const s of args) if (typeof s === 'string') n += s.length;
    charge(n, '$concat');
    return $concat(obj, args.map(literal), options);
  };

  const replacing =
    (op: ExpressionOp, name: string): ExpressionOp =>
    (obj, expr, options: Options) => {
      const args = evalExpr(obj, expr, options);
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return op(obj, expr, options);
      const { input, find, replacement } = args as Record<string, unknown>;
      if (typeof input === 'string' && typeof find === 'string' && typeof replacement === 'string') {
        const occurrences = name === '$replaceOne' ? 1 : countOccurrences(input, find);
        charge(input.length + occurrences * replacement.length, name);
      }
      return op(
        obj,
        { input: literal(input), find: literal(find), replacement: literal(replacement) },
        options,
      );
    };

  return {
    $range: range,
    $concatArrays: concatArrays,
    $concat: concat,
    $replaceAll: replacing($replaceAll, '$replaceAll'),
    $replaceOne: replacing($replaceOne, '$replaceOne'),
  };
}
