import { Aggregator } from 'mingo/aggregator';
import type { Context } from 'mingo/core';
import { isPlainObject, type Doc } from './bson';
import { errors } from '@baas/common';
import { engineErrors, type Budget } from './budget';

export type Stage = Record<string, unknown>;

/** What every stage of one run (and of its sub-pipelines) shares. */
export interface RunContext {
  budget: Budget;
  collections: ReadonlyMap<string, Doc[]>;
  /** `$lookup` `let` variables in scope (outer ones stay visible in nested pipelines). */
  variables: Doc;
  /** mingo's operators with the size-guarded ones in front. */
  operators: Context;
}

/** Runs a sub-pipeline with the same budget; the stage runner passes itself in. */
export type RunStages = (docs: Doc[], stages: Stage[], ctx: RunContext) => Doc[];

/**
 * Scripts stay off, except that mingo implements `$setWindowFields` and `$fill` with an internal
 * `$function`: those stages run with scripts on, which is safe because the engine refuses any
 * client `$function`/`$where`/`$accumulator` before running (see refuseScripts).
 */
export function mingoOptions(ctx: RunContext, scriptEnabled = false) {
  return {
    scriptEnabled,
    useStrictMode: true,
    failOnError: true,
    context: ctx.operators,
    variables: ctx.variables,
    collectionResolver: (name: string) => collection(ctx, name),
  };
}

/** One stage evaluated by mingo. */
export function runMingo(docs: Doc[], stage: Stage, ctx: RunContext, scriptEnabled = false): Doc[] {
  return new Aggregator([stage], mingoOptions(ctx, scriptEnabled)).run<Doc>(docs);
}

const SCRIPT_OPERATORS = new Set(['$where', '$function', '$accumulator']);

/** Server-side JavaScript is refused at any depth (the domain validator does too; this is the engine's own guard). */
export function refuseScripts(v: unknown): void {
  if (Array.isArray(v)) return v.forEach(refuseScripts);
  if (!isPlainObject(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (SCRIPT_OPERATORS.has(k)) throw errors.badRequest('BLOCKED_OPERATOR', `${k} is not allowed`);
    refuseScripts(x);
  }
}

export function collection(ctx: RunContext, name: unknown): Doc[] {
  const docs = typeof name === 'string' ? ctx.collections.get(name) : undefined;
  // The caller fetches every collection the (validated) pipeline names, so this is a caller bug
  // or a name built at run time: either way the pipeline cannot read it.
  if (!docs) throw engineErrors.failed(`collection '${String(name).slice(0, 64)}' is not available`);
  return docs;
}

/** Sets an own property, `__proto__` included (an assignment to it would set the prototype). */
function setOwn(doc: Doc, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(doc, key, { value, writable: true, enumerable: true, configurable: true });
  else doc[key] = value;
}

/**
 * A copy of the document with `path` (dotted: nested objects are created or replaced) set.
 * A spread copy, then the key: not `{ ...doc, [key]: value }`, which on Node 20's V8 takes a slow
 * path (~1 us more per document and stage; a spread alone does not).
 */
export function withField(doc: Doc, path: string, value: unknown): Doc {
  const out: Doc = { ...doc };
  const dot = path.indexOf('.');
  if (dot < 0) {
    setOwn(out, path, value);
    return out;
  }
  const head = path.slice(0, dot);
  const inner = doc[head];
  setOwn(out, head, withField(isPlainObject(inner) ? inner : {}, path.slice(dot + 1), value));
  return out;
}

export function specObject(spec: unknown, stage: string): Doc {
  if (!isPlainObject(spec)) throw engineErrors.failed(`${stage} takes an object`);
  return spec;
}
