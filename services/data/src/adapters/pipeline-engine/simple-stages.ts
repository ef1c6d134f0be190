import { isPlainObject, type Doc } from './bson';
import { engineErrors } from './budget';
import { runMingo, specObject, type RunContext } from './context';

/**
 * Stages evaluated here because mingo's answer differs from MongoDB's: `$count` of nothing is no
 * row (mingo: a count of 0), `$sample` draws distinct documents (mingo: with replacement), and
 * `$addFields`/`$set` with a dotted path through an array set the field in every element.
 */

export function count(docs: Doc[], spec: unknown): Doc[] {
  if (typeof spec !== 'string' || spec === '' || spec.startsWith('$') || spec.includes('.'))
    throw engineErrors.failed('$count takes a field name');
  return docs.length === 0 ? [] : [{ [spec]: docs.length }];
}

export function sample(docs: Doc[], spec: unknown): Doc[] {
  const size = isPlainObject(spec) ? spec.size : undefined;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0)
    throw engineErrors.failed('$sample.size must be a non-negative integer');
  const pool = [...docs];
  const n = Math.min(size, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j] as Doc, pool[i] as Doc];
  }
  return pool.slice(0, n);
}

/** A copy of `target` with the path set (or removed when `value` is undefined), through arrays. */
function setPath(target: unknown, parts: string[], value: unknown): Doc {
  const [head, ...rest] = parts as [string, ...string[]];
  const base: Doc = isPlainObject(target) ? { ...target } : {};
  if (rest.length === 0) {
    if (value === undefined) delete base[head];
    else base[head] = value;
    return base;
  }
  const child = base[head];
  if (Array.isArray(child))
    base[head] = (child as unknown[]).map((el) => (isPlainObject(el) ? setPath(el, rest, value) : el));
  else if (value !== undefined || isPlainObject(child)) base[head] = setPath(child, rest, value);
  return base;
}

const TEMP = '__pipeline_engine_value_';

export function addFields(docs: Doc[], name: string, rawSpec: unknown, ctx: RunContext): Doc[] {
  const spec = specObject(rawSpec, name);
  const paths = Object.keys(spec);
  if (!paths.some((p) => p.includes('.'))) return runMingo(docs, { [name]: spec }, ctx);
  // mingo evaluates every expression against the input document; the engine writes the values.
  const temp = Object.fromEntries(paths.map((p, i) => [`${TEMP}${i}`, spec[p]]));
  return runMingo(docs, { $addFields: temp }, ctx).map((withValues) => {
    let out: Doc = { ...withValues };
    paths.forEach((_p, i) => delete out[`${TEMP}${i}`]);
    paths.forEach((p, i) => {
      out = setPath(out, p.split('.'), withValues[`${TEMP}${i}`]);
    });
    return out;
  });
}
