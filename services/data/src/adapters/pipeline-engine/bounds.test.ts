import { ObjectId } from 'mongodb';
import { approxBytes, evaluatePipeline, runPipeline, type EngineBounds, type Stage } from '.';

type Doc = Record<string, unknown>;

const roomy: EngineBounds = {
  maxOutputRows: 100_000,
  maxWorkingDocuments: 100_000,
  maxWorkingBytes: 64 * 1024 * 1024,
  timeMs: 60_000,
};
const none = new Map<string, Doc[]>();

function failure(run: () => unknown): { status: number; code: string; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    const { status, code, message } = e as { status: number; code: string; message: string };
    return { status, code, message };
  }
}

const docs = (n: number, f: (i: number) => Doc = (i) => ({ i })) => Array.from({ length: n }, (_, i) => f(i));

describe('pipeline engine bounds', () => {
  describe('maxOutputRows', () => {
    it('answers exactly the limit and refuses one more row with 413', () => {
      expect(runPipeline(docs(5), [], none, { ...roomy, maxOutputRows: 5 })).toHaveLength(5);
      expect(failure(() => runPipeline(docs(5), [], none, { ...roomy, maxOutputRows: 4 }))).toMatchObject({
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      });
    });

    it('counts rows after the whole pipeline (a $limit inside keeps it within bounds)', () => {
      expect(runPipeline(docs(50), [{ $limit: 3 }], none, { ...roomy, maxOutputRows: 3 })).toHaveLength(3);
    });
  });

  describe('maxWorkingDocuments', () => {
    const tooCostly = { status: 400, code: 'AGGREGATION_TOO_COSTLY' };
    const limited = (n: number): EngineBounds => ({ ...roomy, maxWorkingDocuments: n });

    it('bounds the input rows and every joined collection', () => {
      expect(runPipeline(docs(5), [], none, limited(5))).toHaveLength(5);
      expect(failure(() => runPipeline(docs(5), [], none, limited(4)))).toMatchObject(tooCostly);
      const other = new Map([['o', docs(6)]]);
      expect(failure(() => runPipeline(docs(1), [], other, limited(5)))).toMatchObject(tooCostly);
    });

    it('refuses an $unwind that would exceed the limit before running it', () => {
      const input = docs(10, (i) => ({ i, a: [1, 2, 3] }));
      expect(runPipeline(input, [{ $unwind: '$a' }], none, limited(30))).toHaveLength(30);
      const f = failure(() => runPipeline(input, [{ $unwind: '$a' }], none, limited(29)));
      expect(f).toMatchObject(tooCostly);
      expect(f?.message).toContain('$unwind');
    });

    it('counts the documents a $lookup embeds, checked while joining', () => {
      const outer = docs(5, (i) => ({ i, k: 1 }));
      const inner = new Map([['in', docs(4, (j) => ({ j, k: 1 }))]]);
      const join: Stage[] = [{ $lookup: { from: 'in', localField: 'k', foreignField: 'k', as: 'x' } }];
      expect(runPipeline(outer, join, inner, limited(25))).toHaveLength(5);
      const f = failure(() => runPipeline(outer, join, inner, limited(24)));
      expect(f).toMatchObject(tooCostly);
      expect(f?.message).toContain('$lookup');
    });

    it('counts the documents of a pipeline $lookup', () => {
      const outer = docs(3);
      const inner = new Map([['in', docs(4)]]);
      const join: Stage[] = [
        { $lookup: { from: 'in', let: { i: '$i' }, pipeline: [{ $match: {} }], as: 'x' } },
      ];
      expect(runPipeline(outer, join, inner, limited(15))).toHaveLength(3);
      expect(failure(() => runPipeline(outer, join, inner, limited(14)))).toMatchObject(tooCostly);
    });

    it('counts a $graphLookup result', () => {
      const people = new Map([['p', docs(4, (i) => ({ n: i, parent: i - 1 }))]]);
      const graph: Stage[] = [
        {
          $graphLookup: {
            from: 'p',
            startWith: '$parent',
            connectFromField: 'parent',
            connectToField: 'n',
            as: 'up',
          },
        },
      ];
      // One input document whose chain reaches all four people: 1 + 4 working documents.
      const input = [{ parent: 3 }];
      expect((runPipeline(input, graph, people, limited(5))[0]?.up as unknown[]).length).toBe(4);
      const f = failure(() => runPipeline(input, graph, people, limited(4)));
      expect(f).toMatchObject(tooCostly);
      expect(f?.message).toContain('$graphLookup');
    });

    it('counts $unionWith and $facet outputs', () => {
      const other = new Map([['o', docs(3)]]);
      expect(runPipeline(docs(5), [{ $unionWith: 'o' }], other, limited(8))).toHaveLength(8);
      expect(failure(() => runPipeline(docs(5), [{ $unionWith: 'o' }], other, limited(7)))).toMatchObject(
        tooCostly,
      );
      const facet: Stage[] = [{ $facet: { a: [{ $match: {} }], b: [{ $match: {} }] } }];
      expect(runPipeline(docs(5), facet, none, limited(15))).toHaveLength(1);
      expect(failure(() => runPipeline(docs(5), facet, none, limited(14)))).toMatchObject(tooCostly);
    });

    it('refuses a $densify that would generate too many documents, before generating them', () => {
      const spec: Stage[] = [{ $densify: { field: 'v', range: { step: 1, bounds: [0, 1_000_000_000] } } }];
      const f = failure(() => runPipeline([{ v: 5 }], spec, none, limited(10_000)));
      expect(f).toMatchObject(tooCostly);
      expect(f?.message).toContain('$densify');
      const small: Stage[] = [{ $densify: { field: 'v', range: { step: 1, bounds: [0, 10] } } }];
      // Estimated as the input (1) plus every step from 0 to 10 inclusive (11): 12.
      expect(runPipeline([{ v: 5 }], small, none, limited(12))).toHaveLength(10);
      expect(failure(() => runPipeline([{ v: 5 }], small, none, limited(11)))).toMatchObject(tooCostly);
    });

    it('refuses an array-building window function over a large partition before running it', () => {
      const all: Stage[] = [
        {
          $setWindowFields: {
            sortBy: { i: 1 },
            output: { all: { $push: '$i', window: { documents: ['unbounded', 'unbounded'] } } },
          },
        },
      ];
      expect(runPipeline(docs(10), all, none, limited(110))).toHaveLength(10);
      expect(failure(() => runPipeline(docs(10), all, none, limited(109)))).toMatchObject(tooCostly);
      const sliding: Stage[] = [
        {
          $setWindowFields: {
            sortBy: { i: 1 },
            output: { near: { $push: '$i', window: { documents: [-1, 1] } } },
          },
        },
      ];
      expect(runPipeline(docs(10), sliding, none, limited(40))).toHaveLength(10);
    });
  });

  describe('maxWorkingBytes', () => {
    const wide = docs(20, (i) => ({ i, s: 'x'.repeat(100), tags: ['a', 'b', 'c'] }));
    const pipeline: Stage[] = [{ $unwind: '$tags' }, { $addFields: { t: { $concat: ['$s', '$s'] } } }];

    it('bounds the size of the input, before any stage runs', () => {
      const size = approxBytes(wide);
      expect(runPipeline(wide, [{ $limit: 1 }], none, { ...roomy, maxWorkingBytes: size })).toHaveLength(1);
      expect(
        failure(() => runPipeline(wide, [{ $limit: 1 }], none, { ...roomy, maxWorkingBytes: size - 1 })),
      ).toMatchObject({ status: 400, code: 'AGGREGATION_TOO_COSTLY' });
    });

    it('accepts a run at exactly its peak size and refuses one byte less', () => {
      const { usage } = evaluatePipeline(wide, pipeline, none, roomy);
      expect(usage.peakBytes).toBeGreaterThan(0);
      expect(runPipeline(wide, pipeline, none, { ...roomy, maxWorkingBytes: usage.peakBytes })).toHaveLength(
        60,
      );
      expect(
        failure(() => runPipeline(wide, pipeline, none, { ...roomy, maxWorkingBytes: usage.peakBytes - 1 })),
      ).toMatchObject({
        status: 400,
        code: 'AGGREGATION_TOO_COSTLY',
      });
    });

    it.each([
      ['$range from two numbers', [{ $project: { r: { $range: [0, 1_000_000_000] } } }]],
      [
        '$concatArrays doubling in $reduce',
        [
          {
            $project: {
              r: {
                $reduce: {
                  input: { $literal: Array(40).fill(0) },
                  initialValue: [1],
                  in: { $concatArrays: ['$$value', '$$value'] },
                },
              },
            },
          },
        ],
      ],
      [
        '$concat doubling in $reduce',
        [
          {
            $project: {
              r: {
                $reduce: {
                  input: { $literal: Array(40).fill(0) },
                  initialValue: 'ab',
                  in: { $concat: ['$$value', '$$value'] },
                },
              },
            },
          },
        ],
      ],
      [
        '$replaceAll growth',
        [
          {
            $project: {
              r: {
                $reduce: {
                  input: { $literal: Array(40).fill(0) },
                  initialValue: 'aa',
                  in: { $replaceAll: { input: '$$value', find: 'a', replacement: 'aa' } },
                },
              },
            },
          },
        ],
      ],
    ])('stops %s before building the value', (_name, p) => {
      expect(
        failure(() => runPipeline(docs(1), p as Stage[], none, { ...roomy, maxWorkingBytes: 1_000_000 })),
      ).toMatchObject({
        status: 400,
        code: 'AGGREGATION_TOO_COSTLY',
      });
    });

    it("charges each run's own budget (the guarded operators are built once per process)", () => {
      // $range of 1,000 numbers charges 8,000 bytes before building them
      const range: Stage[] = [{ $project: { r: { $range: [0, 1000] } } }];
      const tight = { ...roomy, maxWorkingBytes: 7_999 };
      const run = (bounds: EngineBounds) => failure(() => runPipeline(docs(1), range, none, bounds));
      expect(run(roomy)).toBeUndefined();
      expect(run(tight)).toMatchObject({ status: 400, code: 'AGGREGATION_TOO_COSTLY' });
      // a refused run leaves no budget behind: the next runs are charged to theirs
      expect(run(roomy)).toBeUndefined();
      expect(run(tight)).toMatchObject({ status: 400, code: 'AGGREGATION_TOO_COSTLY' });
    });
  });

  describe('timeMs', () => {
    /** A clock that advances one millisecond every time it is read. */
    const ticking = () => {
      let t = 0;
      return { clock: () => t++, reads: () => t };
    };
    const pipeline: Stage[] = [{ $match: {} }, { $sort: { i: -1 } }, { $limit: 3 }];

    it('accepts a run that uses exactly its budget and refuses one millisecond less', () => {
      const probe = ticking();
      evaluatePipeline(docs(5), pipeline, none, roomy, { clock: probe.clock });
      const used = probe.reads() - 1;
      expect(
        runPipeline(docs(5), pipeline, none, { ...roomy, timeMs: used }, { clock: ticking().clock }),
      ).toHaveLength(3);
      expect(
        failure(() =>
          runPipeline(docs(5), pipeline, none, { ...roomy, timeMs: used - 1 }, { clock: ticking().clock }),
        ),
      ).toMatchObject({
        status: 504,
        code: 'QUERY_TIMEOUT',
      });
    });

    it('stops a join between outer documents, not after all of them', () => {
      const c = ticking();
      const join: Stage[] = [
        {
          $lookup: {
            from: 'in',
            let: { i: '$i' },
            pipeline: [{ $match: { $expr: { $eq: ['$i', '$$i'] } } }],
            as: 'x',
          },
        },
      ];
      const f = failure(() =>
        runPipeline(
          docs(1000),
          join,
          new Map([['in', docs(10)]]),
          { ...roomy, timeMs: 20 },
          { clock: c.clock },
        ),
      );
      expect(f).toMatchObject({ code: 'QUERY_TIMEOUT' });
      expect(c.reads()).toBeLessThan(100);
    });
  });

  describe('refused stages and operators', () => {
    it.each([
      ['$geoNear', [{ $geoNear: { near: [0, 0], distanceField: 'd' } }], 'UNSUPPORTED_STAGE'],
      ['$search', [{ $search: { text: { query: 'x', path: 'a' } } }], 'UNSUPPORTED_STAGE'],
      ['$geoNear inside $facet', [{ $facet: { a: [{ $geoNear: {} }] } }], 'UNSUPPORTED_STAGE'],
      ['$out', [{ $out: 'x' }], 'QUERY_FAILED'],
      ['$merge', [{ $merge: { into: 'x' } }], 'QUERY_FAILED'],
      ['$where', [{ $match: { $where: 'true' } }], 'BLOCKED_OPERATOR'],
      [
        '$function in a window output',
        [{ $setWindowFields: { output: { f: { $function: { body: 'x', args: [], lang: 'js' } } } } }],
        'BLOCKED_OPERATOR',
      ],
      ['$accumulator', [{ $group: { _id: null, a: { $accumulator: {} } } }], 'BLOCKED_OPERATOR'],
    ])('refuses %s with a 400', (_name, p, code) => {
      expect(failure(() => runPipeline(docs(2), p as Stage[], none, roomy))).toMatchObject({
        status: 400,
        code,
      });
    });

    it.each([
      [
        'a value outside $bucket boundaries without default',
        [{ $bucket: { groupBy: '$i', boundaries: [100, 200] } }],
      ],
      ['an unknown expression operator', [{ $project: { x: { $nope: 1 } } }]],
      [
        'a join on a collection that was not provided',
        [{ $lookup: { from: 'missing', localField: 'i', foreignField: 'i', as: 'x' } }],
      ],
      ['$bucket boundaries out of order', [{ $bucket: { groupBy: '$i', boundaries: [5, 1] } }]],
      ['$sort by a bad direction', [{ $sort: { i: 2 } }]],
      ['$count with a dollar name', [{ $count: '$n' }]],
    ])('answers %s with 400 QUERY_FAILED', (_name, p) => {
      expect(failure(() => runPipeline(docs(2), p as Stage[], none, roomy))).toMatchObject({
        status: 400,
        code: 'QUERY_FAILED',
      });
    });
  });

  describe('values', () => {
    it('keeps ObjectId ids and Dates as given, and joins, groups and sorts on them', () => {
      const [a, b] = [new ObjectId('65a000000000000000000001'), new ObjectId('65a000000000000000000002')];
      const when = new Date('2024-01-01T00:00:00Z');
      const input = [
        { _id: b, at: when, ref: a },
        { _id: a, at: when, ref: b },
      ];
      const sorted = runPipeline(input, [{ $sort: { _id: 1 } }], none, roomy);
      expect(sorted.map((d) => d._id)).toEqual([a, b]);
      expect(sorted[0]?._id).toBeInstanceOf(ObjectId);
      expect(sorted[0]?.at).toBeInstanceOf(Date);
      const joined = runPipeline(
        input,
        [{ $lookup: { from: 'self', localField: 'ref', foreignField: '_id', as: 'r' } }],
        new Map([['self', input]]),
        roomy,
      );
      expect(joined.map((d) => (d.r as Doc[])[0]?._id)).toEqual([a, b]);
      const grouped = runPipeline(input, [{ $group: { _id: '$at', n: { $sum: 1 } } }], none, roomy);
      expect(grouped).toEqual([{ _id: when, n: 2 }]);
    });

    it('does not treat a hex string and an ObjectId as equal in a join', () => {
      const id = new ObjectId('65a000000000000000000001');
      const joined = runPipeline(
        [{ ref: id.toHexString() }],
        [{ $lookup: { from: 'c', localField: 'ref', foreignField: '_id', as: 'r' } }],
        new Map([['c', [{ _id: id }]]]),
        roomy,
      );
      expect(joined[0]?.r).toEqual([]);
    });

    it('runs an uncorrelated $lookup pipeline once for all outer documents', () => {
      const rows = runPipeline(
        docs(3),
        [{ $lookup: { from: 'c', pipeline: [{ $count: 'n' }], as: 'x' } }],
        new Map([['c', docs(4)]]),
        roomy,
      );
      expect(rows.map((r) => r.x)).toEqual([[{ n: 4 }], [{ n: 4 }], [{ n: 4 }]]);
      expect(rows[0]?.x).toBe(rows[1]?.x);
    });
  });
});
