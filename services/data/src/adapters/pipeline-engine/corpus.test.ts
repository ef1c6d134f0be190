import { aggregationCorpus, corpusFamilies } from '../../../test/aggregation-corpus';
import { runPipeline, type EngineBounds } from '.';

type Doc = Record<string, unknown>;

const roomy: EngineBounds = {
  maxOutputRows: 10_000,
  maxWorkingDocuments: 100_000,
  maxWorkingBytes: 64 * 1024 * 1024,
  timeMs: 60_000,
};

/**
 * Numbers to 12 significant digits: MongoDB sums doubles with extra precision, so the last bits of
 * a sum may differ from JavaScript's left-to-right addition.
 */
function canonical(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(12));
  if (Array.isArray(v)) return v.map(canonical);
  if (v instanceof Date || v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Doc).map(([k, x]) => [k, canonical(x)]));
}

/** A key independent of field order, to compare unordered results as multisets. */
function sortKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortKey).join(',')}]`;
  if (v instanceof Date) return `D${v.toISOString()}`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}:${sortKey((v as Doc)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

const asMultiset = (rows: Doc[]) =>
  [...rows].map(canonical).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));

const collections = new Map(Object.entries(aggregationCorpus.datasets));
/** Dates are copied as Dates of this realm (structuredClone's would not be equal under jest). */
const copy = (v: unknown): unknown =>
  v instanceof Date
    ? new Date(v.getTime())
    : Array.isArray(v)
      ? v.map(copy)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]))
        : v;
const pristine = copy(aggregationCorpus.datasets);

describe('aggregation corpus, evaluated in process', () => {
  it('has at least 300 cases with unique names', () => {
    const names = aggregationCorpus.cases.map((c) => c.name);
    expect(names.length).toBeGreaterThanOrEqual(300);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const [family, cases] of Object.entries(corpusFamilies)) {
    describe(family, () => {
      it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
        const input = collections.get(c.collection) as Doc[];
        const rows = runPipeline(input, c.pipeline, collections, roomy);
        const expected = c.inProcess ?? c.expected;
        if (c.ordered) expect(rows.map(canonical)).toEqual(expected.map(canonical));
        else expect(asMultiset(rows)).toEqual(asMultiset(expected));
      });
    });
  }

  it('leaves the input documents unchanged', () => {
    expect(aggregationCorpus.datasets).toEqual(pristine);
  });
});
