import { Aggregator } from 'mingo/aggregator';
import { equalityKey, reach, type Doc } from './bson';
import { approxBytes, engineErrors } from './budget';
import {
  collection,
  mingoOptions,
  specObject,
  withField,
  type RunContext,
  type RunStages,
  type Stage,
} from './context';

/** Variables any pipeline may use without a `let`: they do not tie a sub-pipeline to its document. */
const SYSTEM_VARIABLES = new Set(['ROOT', 'CURRENT', 'NOW', 'REMOVE', 'DESCEND', 'PRUNE', 'KEEP']);

/** True when the sub-pipeline reads a variable, so its answer may differ per outer document. */
function usesVariables(v: unknown): boolean {
  if (typeof v === 'string')
    return v.startsWith('$$') && !SYSTEM_VARIABLES.has(v.slice(2).split('.')[0] as string);
  if (Array.isArray(v)) return v.some(usesVariables);
  if (typeof v === 'object' && v !== null) return Object.values(v).some(usesVariables);
  return false;
}

/**
 * The foreign documents by the values of `foreignField`, as a MongoDB equality match sees them:
 * an array field is matched by each element and by the whole array, a missing field by null.
 */
function indexBy(docs: Doc[], path: string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  const add = (key: string, pos: number) => {
    const list = index.get(key);
    if (!list) index.set(key, [pos]);
    else if (list[list.length - 1] !== pos) list.push(pos);
  };
  docs.forEach((doc, pos) => {
    const leaves = reach(doc, path);
    if (leaves.length === 0) add(equalityKey(null), pos);
    for (const leaf of leaves) {
      add(equalityKey(leaf), pos);
      if (Array.isArray(leaf)) for (const el of leaf) add(equalityKey(el), pos);
    }
  });
  return index;
}

/** The values of `localField` a join matches: array elements one by one, null when missing. */
function localValues(doc: Doc, path: string): unknown[] {
  const leaves = reach(doc, path);
  if (leaves.length === 0) return [null];
  return leaves.flatMap((leaf) => (Array.isArray(leaf) ? (leaf as unknown[]) : [leaf]));
}

function matching(index: Map<string, number[]>, foreign: Doc[], values: unknown[]): Doc[] {
  if (values.length === 1) return (index.get(equalityKey(values[0])) ?? []).map((p) => foreign[p] as Doc);
  const positions = new Set<number>();
  for (const v of values) for (const p of index.get(equalityKey(v)) ?? []) positions.add(p);
  return [...positions].sort((a, b) => a - b).map((p) => foreign[p] as Doc);
}

/**
 * `$lookup`, evaluated here rather than by mingo: mingo runs the pipeline of a combined
 * localField/foreignField + pipeline lookup over the whole foreign collection once any key
 * matches. Equality is a hash join (foreign order kept); the pipeline then runs on the matched
 * documents only, with the `let` variables of the outer document. An uncorrelated pipeline runs
 * once. The clock and the number of joined documents are checked after each outer document.
 */
export function lookup(docs: Doc[], rawSpec: unknown, ctx: RunContext, run: RunStages): Doc[] {
  const spec = specObject(rawSpec, '$lookup');
  const as = spec.as;
  if (typeof as !== 'string' || as === '') throw engineErrors.failed('$lookup needs an `as` field name');
  const foreign = collection(ctx, spec.from);
  const pipeline = (spec.pipeline ?? []) as Stage[];
  if (!Array.isArray(pipeline)) throw engineErrors.failed('$lookup.pipeline must be an array');
  const { localField, foreignField } = spec;
  const equality = localField !== undefined || foreignField !== undefined;
  if (equality && (typeof localField !== 'string' || typeof foreignField !== 'string'))
    throw engineErrors.failed('$lookup needs both localField and foreignField as strings');
  const index = equality ? indexBy(foreign, foreignField as string) : undefined;
  const letSpec = spec.let === undefined ? undefined : specObject(spec.let, '$lookup.let');
  const letEval = letSpec ? new Aggregator([{ $replaceWith: letSpec }], mingoOptions(ctx)) : undefined;
  const correlated = equality || letSpec !== undefined || usesVariables(pipeline);
  let uncorrelated: Doc[] | undefined;

  let embedded = 0;
  let bytes = 0;
  return docs.map((doc) => {
    ctx.budget.checkTime();
    const matched = index ? matching(index, foreign, localValues(doc, localField as string)) : foreign;
    let joined: Doc[];
    if (pipeline.length === 0) joined = matched;
    else if (!correlated) joined = uncorrelated ??= run(foreign, pipeline, ctx);
    else {
      const vars = letEval ? letEval.run<Doc>([doc])[0] : undefined;
      joined = run(matched, pipeline, { ...ctx, variables: { ...ctx.variables, ...vars } });
    }
    embedded += joined.length;
    ctx.budget.documents(docs.length + embedded, '$lookup');
    bytes += approxBytes(joined, ctx.budget.bounds.maxWorkingBytes);
    ctx.budget.bytes(bytes, '$lookup');
    return withField(doc, as, joined);
  });
}

/** `$graphLookup` by mingo, one outer document at a time so the clock and sizes are checked between. */
export function graphLookup(docs: Doc[], rawSpec: unknown, ctx: RunContext): Doc[] {
  const spec = specObject(rawSpec, '$graphLookup');
  collection(ctx, spec.from);
  const as = String(spec.as);
  const agg = new Aggregator([{ $graphLookup: spec }], mingoOptions(ctx));
  let embedded = 0;
  let bytes = 0;
  return docs.map((doc) => {
    ctx.budget.checkTime();
    const out = agg.run<Doc>([doc])[0] as Doc;
    const found = reach(out, as)[0];
    const joined = Array.isArray(found) ? found : [];
    embedded += joined.length;
    ctx.budget.documents(docs.length + embedded, '$graphLookup');
    bytes += approxBytes(joined, ctx.budget.bounds.maxWorkingBytes);
    ctx.budget.bytes(bytes, '$graphLookup');
    return out;
  });
}

export function unionWith(docs: Doc[], spec: unknown, ctx: RunContext, run: RunStages): Doc[] {
  const { coll, pipeline } =
    typeof spec === 'string' ? { coll: spec, pipeline: [] } : specObject(spec, '$unionWith');
  if (pipeline !== undefined && !Array.isArray(pipeline))
    throw engineErrors.failed('$unionWith.pipeline must be an array');
  const other = run(collection(ctx, coll), (pipeline ?? []) as Stage[], ctx);
  ctx.budget.documents(docs.length + other.length, '$unionWith');
  return [...docs, ...other];
}

export function facet(docs: Doc[], rawSpec: unknown, ctx: RunContext, run: RunStages): Doc[] {
  const spec = specObject(rawSpec, '$facet');
  const out: Doc = {};
  let embedded = 0;
  for (const [name, sub] of Object.entries(spec)) {
    if (!Array.isArray(sub)) throw engineErrors.failed(`$facet.${name} must be a pipeline`);
    ctx.budget.checkTime();
    const rows = run(docs, sub as Stage[], ctx);
    embedded += rows.length;
    ctx.budget.documents(docs.length + embedded, '$facet');
    out[name] = rows;
  }
  return [out];
}
