import { isPlainObject, type Doc } from './bson';
import { engineErrors } from './budget';
import { runMingo, specObject, type RunContext } from './context';

/**
 * Stages evaluated (or finished) here because mingo's answer differs from MongoDB's: `$count` of
 * nothing is no row (mingo: a count of 0), `$sample` draws distinct documents (mingo: with
 * replacement), `$addFields`/`$set` with a dotted path through an array set the field in every
 * element, `$densify` with explicit bounds fills up to the upper bound (mingo stops at the
 * largest value present).
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

const UNIT_MS: Record<string, number> = {
  millisecond: 1,
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};
const UNIT_MONTHS: Record<string, number> = { month: 1, quarter: 3, year: 12 };

function stepFrom(v: number | Date, step: number, unit: unknown): number | Date {
  if (typeof v === 'number') return v + step;
  const u = String(unit);
  if (u in UNIT_MONTHS) {
    const d = new Date(v.getTime());
    d.setUTCMonth(d.getUTCMonth() + step * (UNIT_MONTHS[u] as number));
    return d;
  }
  return new Date(v.getTime() + step * (UNIT_MS[u] ?? 1));
}

const valueOf = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : v instanceof Date ? v.getTime() : undefined;

export function densify(docs: Doc[], rawSpec: unknown, ctx: RunContext): Doc[] {
  const out = runMingo(docs, { $densify: rawSpec }, ctx);
  const spec = specObject(rawSpec, '$densify');
  const range = isPlainObject(spec.range) ? spec.range : {};
  const bounds = range.bounds;
  const field = spec.field;
  const step = range.step;
  if (!Array.isArray(bounds) || typeof field !== 'string' || typeof step !== 'number' || step <= 0)
    return out;
  const [lower, upper] = bounds as [number | Date, number | Date];
  const fields = Array.isArray(spec.partitionByFields) ? (spec.partitionByFields as string[]) : [];
  // The largest value per partition, then every step of the grid from the lower bound beyond it.
  const last = new Map<string, { max: number; doc: Doc }>();
  for (const doc of out) {
    const v = valueOf(doc[field]);
    if (v === undefined) continue;
    const key = JSON.stringify(fields.map((f) => doc[f]));
    const seen = last.get(key);
    if (!seen || v > seen.max) last.set(key, { max: v, doc });
  }
  const tail: Doc[] = [];
  const upperValue = valueOf(upper) as number;
  for (const { max, doc } of last.values()) {
    let next = lower;
    while ((valueOf(next) as number) <= max) next = stepFrom(next, step, range.unit);
    for (; (valueOf(next) as number) < upperValue; next = stepFrom(next, step, range.unit)) {
      const generated: Doc = { [field]: next };
      for (const f of fields) generated[f] = doc[f];
      tail.push(generated);
    }
  }
  return tail.length === 0 ? out : [...out, ...tail];
}
