import { reviveExtendedJson } from './extended-json';

describe('Extended JSON dates in pipelines', () => {
  it('turns { $date } objects into dates at any depth and leaves everything else', () => {
    const out = reviveExtendedJson([
      { $match: { at: { $gte: { $date: '2024-01-05T10:00:00Z' } }, n: 1 } },
      { $bucket: { groupBy: '$at', boundaries: [{ $date: 0 }, { $date: '2025-01-01' }] } },
    ]) as Array<Record<string, any>>;
    expect(out[0]?.$match.at.$gte).toEqual(new Date('2024-01-05T10:00:00Z'));
    expect(out[0]?.$match.n).toBe(1);
    expect(out[1]?.$bucket.boundaries).toEqual([new Date(0), new Date('2025-01-01')]);
  });

  it('keeps an object that only looks alike, and refuses a malformed date with 400', () => {
    expect(reviveExtendedJson({ $date: 'x', other: 1 })).toEqual({ $date: 'x', other: 1 });
    expect(() => reviveExtendedJson({ $date: 'not a date' })).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(() => reviveExtendedJson({ $date: true })).toThrow(expect.objectContaining({ status: 400 }));
  });
});
