/** How a result is compared with the corpus's expected rows, in process and end to end alike. */
type Doc = Record<string, unknown>;

/**
 * Numbers to 12 significant digits: MongoDB sums doubles with extra precision, so the last bits of
 * a sum may differ from JavaScript's left-to-right addition.
 */
export function canonical(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(12));
  if (Array.isArray(v)) return v.map(canonical);
  if (v instanceof Date || v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Doc).map(([k, x]) => [k, canonical(x)]));
}

/** A key independent of field order, to compare unordered results as multisets. */
export function sortKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortKey).join(',')}]`;
  if (v instanceof Date) return `D${v.toISOString()}`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}:${sortKey((v as Doc)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

export const asMultiset = (rows: unknown[]): unknown[] =>
  [...rows].map(canonical).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
