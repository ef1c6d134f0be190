import { securePipeline } from './secure-pipeline';

describe('secured pipeline', () => {
  const filterFor = (c: string) => ({ isDeleted: false, owner: `of-${c}` });

  it('puts the read filter first and caps the rows', () => {
    const out = securePipeline([{ $count: 'n' }], 'main', filterFor, 1000);
    expect(out[0]).toEqual({ $match: { isDeleted: false, owner: 'of-main' } });
    expect(out[out.length - 2]).toEqual({ $count: 'n' });
    expect(out[out.length - 1]).toEqual({ $limit: 1000 });
  });

  it('keeps $geoNear first and injects the filter right after it', () => {
    const geo = { $geoNear: { near: [0, 0], distanceField: 'd' } };
    const out = securePipeline([geo, { $limit: 3 }], 'main', filterFor, 1000);
    expect(out[0]).toEqual(geo);
    expect(out[1]).toEqual({ $match: { isDeleted: false, owner: 'of-main' } });
  });

  it('filters what $lookup, $unionWith and $graphLookup read, at any depth', () => {
    const out = securePipeline(
      [
        { $lookup: { from: 'a', localField: 'x', foreignField: 'y', as: 'z' } },
        { $facet: { f: [{ $unionWith: 'b' }] } },
        {
          $graphLookup: {
            from: 'c',
            startWith: '$x',
            connectFromField: 'x',
            connectToField: 'y',
            as: 'g',
            restrictSearchWithMatch: { k: 1 },
          },
        },
      ],
      'main',
      filterFor,
      1000,
    );
    const text = JSON.stringify(out);
    const lookup = out.find((s) => '$lookup' in s) as {
      $lookup: { pipeline: unknown[]; localField: string };
    };
    expect(lookup.$lookup.pipeline[0]).toEqual({ $match: filterFor('a') });
    expect(lookup.$lookup.localField).toBe('x');
    expect(text).toContain(
      JSON.stringify({
        $unionWith: {
          coll: 'b',
          pipeline: [{ $match: filterFor('b') }, { $unset: ['_outbox', '_purgeAfterRelay'] }],
        },
      }),
    );
    const graph = out.find((s) => '$graphLookup' in s) as {
      $graphLookup: { restrictSearchWithMatch: unknown };
    };
    expect(graph.$graphLookup.restrictSearchWithMatch).toEqual({ $and: [filterFor('c'), { k: 1 }] });
  });
});
