import { equalityKey, isPlainObject, type Doc } from './bson';
import { runMingo, type RunContext } from './context';

/**
 * Upper bounds of what a stage will produce, computed before it runs: these stages can turn a
 * few documents into millions inside one synchronous call, where no later check could stop them.
 */

function plainValue(doc: Doc, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split('.')) v = isPlainObject(v) ? v[part] : undefined;
  return v;
}

/** Documents `$unwind` outputs (arrays count their length, everything else one). */
export function unwindCount(docs: Doc[], spec: unknown): number {
  const raw = typeof spec === 'string' ? spec : isPlainObject(spec) ? spec.path : undefined;
  if (typeof raw !== 'string' || !raw.startsWith('$')) return docs.length;
  const path = raw.slice(1);
  let n = 0;
  for (const doc of docs) {
    const v = plainValue(doc, path);
    n += Array.isArray(v) ? Math.max(1, v.length) : 1;
  }
  return n;
}

const UNIT_MIN_MS: Record<string, number> = {
  millisecond: 1,
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 28 * 86_400_000,
  quarter: 89 * 86_400_000,
  year: 365 * 86_400_000,
};

const asNumber = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : v instanceof Date ? v.getTime() : undefined;

/** Documents `$densify` may output: the input plus every generated step, per partition. */
export function densifyCount(docs: Doc[], spec: unknown): number {
  if (!isPlainObject(spec) || !isPlainObject(spec.range) || typeof spec.field !== 'string')
    return docs.length;
  const { step, unit, bounds } = spec.range;
  if (typeof step !== 'number' || step <= 0) return docs.length;
  const stepSize = typeof unit === 'string' ? step * (UNIT_MIN_MS[unit] ?? 1) : step;
  let lo: number | undefined;
  let hi: number | undefined;
  if (Array.isArray(bounds)) [lo, hi] = [asNumber(bounds[0]), asNumber(bounds[1])];
  else
    for (const doc of docs) {
      const v = asNumber(plainValue(doc, spec.field));
      if (v === undefined) continue;
      lo = lo === undefined ? v : Math.min(lo, v);
      hi = hi === undefined ? v : Math.max(hi, v);
    }
  if (lo === undefined || hi === undefined || hi <= lo) return docs.length;
  const fields = Array.isArray(spec.partitionByFields) ? (spec.partitionByFields as unknown[]) : [];
  const partitions = new Set(
    docs.map((d) => equalityKey(fields.map((f) => (typeof f === 'string' ? plainValue(d, f) : null)))),
  );
  return docs.length + Math.max(1, partitions.size) * (Math.floor((hi - lo) / stepSize) + 1);
}

/** Window functions whose value is an array of the window's documents. */
const ARRAY_WINDOW_OPS = new Set(['$push', '$addToSet']);

function windowSpan(window: unknown): number {
  if (!isPlainObject(window) || !Array.isArray(window.documents)) return Infinity;
  const [lo, hi] = window.documents as unknown[];
  const pos = (v: unknown) => (v === 'current' ? 0 : typeof v === 'number' ? v : undefined);
  const [a, b] = [pos(lo), pos(hi)];
  return a === undefined || b === undefined ? Infinity : Math.max(0, b - a + 1);
}

/**
 * Array elements `$setWindowFields` builds: each document of a partition of size p gets up to
 * min(p, window) elements per array-valued output. Zero when no output builds an array.
 */
export function windowElements(docs: Doc[], spec: unknown, ctx: RunContext): number {
  if (!isPlainObject(spec) || !isPlainObject(spec.output)) return 0;
  const spans: number[] = [];
  for (const out of Object.values(spec.output))
    if (isPlainObject(out) && Object.keys(out).some((k) => ARRAY_WINDOW_OPS.has(k)))
      spans.push(windowSpan(out.window));
  if (spans.length === 0) return 0;
  const partitions =
    spec.partitionBy === undefined
      ? [docs.length]
      : runMingo(docs, { $group: { _id: spec.partitionBy, n: { $sum: 1 } } }, ctx).map((g) => Number(g.n));
  let n = 0;
  for (const p of partitions) for (const span of spans) n += p * Math.min(p, span);
  return n;
}
