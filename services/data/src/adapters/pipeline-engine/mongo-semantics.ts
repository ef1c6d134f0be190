import { evalExpr } from 'mingo/core';
import {
  $addToSet,
  $avg as avgAccumulator,
  $max as maxAccumulator,
  $min as minAccumulator,
  $push,
  $sum as sumAccumulator,
} from 'mingo/operators/accumulator';
import { $dateDiff, $round, $toLower, $toUpper, $trunc } from 'mingo/operators/expression';
import type { Operators } from './operators';
import { compareValues, isObjectId, isPlainObject, reach, type Doc } from './bson';

/**
 * Operators whose mingo 7.2 behaviour differs from MongoDB's documented one, replaced or wrapped.
 * Each was found by the differential corpus (services/data/test/aggregation-corpus).
 */

type Options = Parameters<typeof $round>[2];
type ExpressionOp = (obj: Doc, expr: unknown, options: Options) => unknown;
type AccumulatorOp = (coll: Doc[], expr: unknown, options: Options) => unknown;
/** mingo types each operator map by the union of its own operators' signatures; ours are plainer. */
type Ops = Operators;

const literal = (v: unknown) => ({ $literal: v });
const isNumber = (v: unknown): v is number => typeof v === 'number';
const fail = (message: string): never => {
  throw new Error(message);
};

/** Aggregation comparison: BSON order across types, and a missing value below null (so not equal). */
function compareExpressionValues(a: unknown, b: unknown): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return compareValues(a, b);
}

/** mingo compares an array with a scalar element-wise and null as unordered; MongoDB does neither. */
function comparison(name: string, test: (c: number) => boolean | number): ExpressionOp {
  return (obj, expr, options: Options) => {
    const args = evalExpr(obj, expr, options);
    if (!Array.isArray(args) || args.length !== 2) return fail(`${name} takes two arguments`);
    return test(compareExpressionValues(args[0], args[1]));
  };
}

/**
 * `$sum`/`$avg`/`$min`/`$max` as expressions: missing or null operands give 0 or null, not an
 * error. mingo has no expression operators of these names: it evaluates them with the accumulator
 * (on the group's documents inside `$group`, where `obj` is that array, and that path stays).
 */
function arrayReducer(name: '$sum' | '$avg' | '$min' | '$max', accumulator: AccumulatorOp): ExpressionOp {
  return (obj, expr, options: Options) => {
    if (Array.isArray(obj)) return accumulator(obj, expr, options);
    const evaluated = evalExpr(obj, expr, options);
    let values: unknown[];
    if (Array.isArray(expr)) values = evaluated as unknown[];
    else if (Array.isArray(evaluated)) values = evaluated;
    else values = [evaluated];
    const numbers = values.filter(isNumber);
    if (name === '$sum') return numbers.reduce((a, b) => a + b, 0);
    if (name === '$avg')
      return numbers.length === 0 ? null : numbers.reduce((a, b) => a + b, 0) / numbers.length;
    const present = values.filter((v) => v !== null && v !== undefined);
    if (present.length === 0) return null;
    const sign = name === '$min' ? 1 : -1;
    return present.reduce((best, v) => (compareValues(v, best) * sign < 0 ? v : best));
  };
}

/** `$toUpper`/`$toLower` of null or missing is the empty string. */
const caseOf =
  (op: ExpressionOp): ExpressionOp =>
  (obj, expr, options: Options) => {
    const v = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
    return v === null || v === undefined ? '' : op(obj, literal(v), options);
  };

/** `$trunc`/`$round` also take a single number (place 0). */
const withPlace =
  (op: ExpressionOp): ExpressionOp =>
  (obj, expr, options: Options) =>
    op(obj, Array.isArray(expr) ? expr : [expr, 0], options);

/** `$week`: weeks start on Sunday, days before the year's first Sunday are week 0 (strftime %U). */
const week: ExpressionOp = (obj, expr, options: Options) => {
  const arg = evalExpr(obj, expr, options);
  const v = isPlainObject(arg) ? arg.date : arg;
  if (v === null || v === undefined) return null;
  if (!(v instanceof Date)) return fail('$week takes a date');
  const yday = Math.floor((v.getTime() - Date.UTC(v.getUTCFullYear(), 0, 1)) / 86_400_000);
  return Math.floor((yday + 7 - v.getUTCDay()) / 7);
};

/** `$dateDiff` of a null or missing date is null. */
const dateDiff: ExpressionOp = (obj, expr, options: Options) => {
  const spec = evalExpr(obj, expr, options);
  if (!isPlainObject(spec)) return fail('$dateDiff takes an object');
  const { startDate, endDate } = spec;
  if (startDate === null || startDate === undefined || endDate === null || endDate === undefined) return null;
  return $dateDiff(obj, Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, literal(v)])), options);
};

/** `$indexOfCP`, which mingo lacks. */
const indexOfCP: ExpressionOp = (obj, expr, options: Options) => {
  const args = evalExpr(obj, expr, options);
  if (!Array.isArray(args) || args.length < 2) return fail('$indexOfCP takes a string and a substring');
  const [s, sub, start = 0, end] = args as unknown[];
  if (s === null || s === undefined) return null;
  if (typeof s !== 'string' || typeof sub !== 'string') return fail('$indexOfCP takes strings');
  if (!isNumber(start) || (end !== undefined && !isNumber(end)))
    return fail('$indexOfCP takes numeric bounds');
  const cps = Array.from(s);
  const needle = Array.from(sub);
  const last = Math.min(end ?? cps.length, cps.length);
  for (let i = start; i + needle.length <= last; i++) if (needle.every((c, j) => cps[i + j] === c)) return i;
  return -1;
};

/** `$push`/`$addToSet` skip missing values (mingo pushes null for them). */
const MISSING = '\u0000missing\u0000';
const skippingMissing =
  (op: AccumulatorOp): AccumulatorOp =>
  (coll, expr, options: Options) => {
    if (expr === null || expr === undefined) return op(coll, expr, options);
    const marked = { $cond: [{ $eq: [{ $type: expr }, 'missing'] }, literal(MISSING), expr] };
    const out = op(coll, marked, options);
    return Array.isArray(out) ? out.filter((v) => v !== MISSING) : out;
  };

const TYPE_ALIASES: Record<string, (v: unknown) => boolean> = {
  double: (v) => isNumber(v) && !isInt32(v),
  string: (v) => typeof v === 'string',
  object: (v) => isPlainObject(v),
  array: (v) => Array.isArray(v),
  objectId: (v) => isObjectId(v),
  bool: (v) => typeof v === 'boolean',
  date: (v) => v instanceof Date,
  null: (v) => v === null,
  regex: (v) => v instanceof RegExp,
  int: (v) => isInt32(v),
  number: isNumber,
};
const TYPE_CODES: Record<number, string> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  7: 'objectId',
  8: 'bool',
  9: 'date',
  10: 'null',
  11: 'regex',
  16: 'int',
};

function isInt32(v: unknown): boolean {
  return isNumber(v) && Number.isInteger(v) && v >= -2_147_483_648 && v <= 2_147_483_647;
}

function hasType(v: unknown, type: unknown): boolean {
  const name = typeof type === 'number' ? TYPE_CODES[type] : type;
  const test = typeof name === 'string' ? TYPE_ALIASES[name] : undefined;
  return test ? test(v) : false;
}

/** Query `$type`: an array field matches when an element has the type (as well as 'array'). */
const typeQuery = (selector: string, value: unknown) => {
  const wanted = Array.isArray(value) ? (value as unknown[]) : [value];
  return (obj: Doc) =>
    reach(obj, selector).some((leaf) =>
      wanted.some((t) => hasType(leaf, t) || (Array.isArray(leaf) && leaf.some((el) => hasType(el, t)))),
    );
};

export function mongoSemantics(): Required<Pick<Ops, 'expression' | 'accumulator' | 'query'>> {
  return {
    expression: {
      $eq: comparison('$eq', (c) => c === 0),
      $ne: comparison('$ne', (c) => c !== 0),
      $gt: comparison('$gt', (c) => c > 0),
      $gte: comparison('$gte', (c) => c >= 0),
      $lt: comparison('$lt', (c) => c < 0),
      $lte: comparison('$lte', (c) => c <= 0),
      $cmp: comparison('$cmp', (c) => Math.sign(c)),
      $sum: arrayReducer('$sum', sumAccumulator),
      $avg: arrayReducer('$avg', avgAccumulator),
      $min: arrayReducer('$min', minAccumulator),
      $max: arrayReducer('$max', maxAccumulator),
      $toUpper: caseOf($toUpper),
      $toLower: caseOf($toLower),
      $trunc: withPlace($trunc),
      $round: withPlace($round),
      $week: week,
      $dateDiff: dateDiff,
      $indexOfCP: indexOfCP,
    },
    accumulator: {
      $push: skippingMissing($push),
      $addToSet: skippingMissing($addToSet),
    },
    query: <NonNullable<Ops['query']>>(<unknown>{ $type: typeQuery }),
  };
}
