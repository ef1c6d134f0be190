import { aggregationCorpus, corpusFamilies } from '../../../test/aggregation-corpus';
import { runPipeline, type EngineBounds } from '.';
import { asMultiset, canonical } from '../../../test/aggregation-corpus/compare';

type Doc = Record<string, unknown>;

const roomy: EngineBounds = {
  maxOutputRows: 10_000,
  maxWorkingDocuments: 100_000,
  maxWorkingBytes: 64 * 1024 * 1024,
  timeMs: 60_000,
};

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
