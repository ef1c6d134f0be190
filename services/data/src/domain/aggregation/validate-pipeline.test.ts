import { pathPastDepth } from '@baas/common';
import { validatePipeline, AGGREGATION_LIMITS } from './validate-pipeline';

const code = (pipeline: unknown): string | undefined => {
  try {
    validatePipeline(pipeline);
    return undefined;
  } catch (e) {
    return (e as { code: string }).code;
  }
};

describe('aggregation pipeline validator', () => {
  it.each([
    [[{ $match: { a: 1 } }, { $group: { _id: '$a', n: { $sum: 1 } } }, { $sort: { n: -1 } }, { $limit: 5 }]],
    [
      [
        { $project: { a: 1 } },
        { $addFields: { b: { $concat: ['$a', 'x'] } } },
        { $unset: 'b' },
        { $count: 'n' },
      ],
    ],
    [[{ $facet: { a: [{ $match: {} }], b: [{ $count: 'n' }] } }]],
    [[{ $lookup: { from: 'orders', localField: 'a', foreignField: 'b', as: 'o' } }]],
    [
      [
        {
          $lookup: {
            from: 'orders',
            let: { x: '$a' },
            pipeline: [{ $match: { $expr: { $eq: ['$b', '$$x'] } } }],
            as: 'o',
          },
        },
      ],
    ],
    [[{ $unionWith: 'orders' }]],
    [[{ $unionWith: { coll: 'orders', pipeline: [{ $project: { a: 1 } }] } }]],
    [
      [
        {
          $graphLookup: {
            from: 'orders',
            startWith: '$a',
            connectFromField: 'a',
            connectToField: 'b',
            as: 'g',
          },
        },
      ],
    ],
    [[{ $geoNear: { near: { type: 'Point', coordinates: [0, 0] }, distanceField: 'd' } }, { $limit: 1 }]],
    [[]],
  ])('accepts a valid pipeline %#', (p) => {
    expect(code(p)).toBeUndefined();
  });

  it.each([
    ['$out at top level', [{ $out: 'x' }], 'BLOCKED_STAGE'],
    ['$merge at top level', [{ $merge: { into: 'x' } }], 'BLOCKED_STAGE'],
    ['$out inside $facet', [{ $facet: { a: [{ $out: 'x' }] } }], 'BLOCKED_STAGE'],
    [
      '$merge inside $lookup.pipeline',
      [{ $lookup: { from: 'o', pipeline: [{ $merge: 'x' }], as: 'y' } }],
      'BLOCKED_STAGE',
    ],
    [
      '$out inside $unionWith.pipeline',
      [{ $unionWith: { coll: 'o', pipeline: [{ $out: 'x' }] } }],
      'BLOCKED_STAGE',
    ],
    ['$where in $match', [{ $match: { $where: 'sleep(1000)' } }], 'BLOCKED_OPERATOR'],
    ['$where nested in $and', [{ $match: { $and: [{ a: 1 }, { $where: 'true' }] } }], 'BLOCKED_OPERATOR'],
    [
      '$function in $expr',
      [{ $match: { $expr: { $function: { body: 'x', args: [], lang: 'js' } } } }],
      'BLOCKED_OPERATOR',
    ],
    [
      '$function in $addFields',
      [{ $addFields: { x: { $function: { body: 'x', args: [], lang: 'js' } } } }],
      'BLOCKED_OPERATOR',
    ],
    [
      '$function inside $cond',
      [{ $project: { x: { $cond: [true, { $function: {} }, 1] } } }],
      'BLOCKED_OPERATOR',
    ],
    [
      '$function inside $map.in',
      [{ $project: { x: { $map: { input: '$a', in: { $function: {} } } } } }],
      'BLOCKED_OPERATOR',
    ],
    ['$accumulator in $group', [{ $group: { _id: null, x: { $accumulator: {} } } }], 'BLOCKED_OPERATOR'],
    [
      '$where deep in $facet > $lookup',
      [{ $facet: { a: [{ $lookup: { from: 'o', pipeline: [{ $match: { $where: '1' } }], as: 'x' } }] } }],
      'BLOCKED_OPERATOR',
    ],
    ['unicode-escaped $out', JSON.parse('[{"\\u0024out": "x"}]'), 'BLOCKED_STAGE'],
    ['$currentOp', [{ $currentOp: {} }], 'BLOCKED_OPERATOR'],
    ['$collStats', [{ $collStats: {} }], 'BLOCKED_OPERATOR'],
    ['$documents', [{ $documents: [{ a: 1 }] }], 'BLOCKED_OPERATOR'],
    ['$changeStream', [{ $changeStream: {} }], 'BLOCKED_OPERATOR'],
    ['$listSessions', [{ $listSessions: {} }], 'BLOCKED_OPERATOR'],
    ['$indexStats', [{ $indexStats: {} }], 'BLOCKED_OPERATOR'],
    ['internal stage', [{ $_internalInhibitOptimization: {} }], 'BLOCKED_OPERATOR'],
    ['unknown stage', [{ $foo: {} }], 'UNKNOWN_STAGE'],
    [
      '$lookup into another db',
      [
        {
          $lookup: { from: { db: 'baas_auth', coll: 'users' }, localField: 'a', foreignField: 'b', as: 'x' },
        },
      ],
      'CROSS_DATABASE_ACCESS',
    ],
    [
      '$unionWith into another db',
      [{ $unionWith: { coll: { db: 'other', coll: 'x' } } }],
      'CROSS_DATABASE_ACCESS',
    ],
    [
      '$lookup into users',
      [{ $lookup: { from: 'users', localField: 'a', foreignField: 'b', as: 'x' } }],
      'LOOKUP_FORBIDDEN',
    ],
    [
      '$lookup into Users',
      [{ $lookup: { from: 'Users', localField: 'a', foreignField: 'b', as: 'x' } }],
      'LOOKUP_FORBIDDEN',
    ],
    ['$unionWith users', [{ $unionWith: 'users' }], 'LOOKUP_FORBIDDEN'],
    [
      '$graphLookup users',
      [
        {
          $graphLookup: {
            from: 'users',
            startWith: '$a',
            connectFromField: 'a',
            connectToField: 'b',
            as: 'g',
          },
        },
      ],
      'LOOKUP_FORBIDDEN',
    ],
    [
      '$lookup into system.profile',
      [{ $lookup: { from: 'system.profile', localField: 'a', foreignField: 'b', as: 'x' } }],
      'LOOKUP_FORBIDDEN',
    ],
    [
      '$lookup into a dotted name',
      [{ $lookup: { from: 'other.coll', localField: 'a', foreignField: 'b', as: 'x' } }],
      'LOOKUP_FORBIDDEN',
    ],
    [
      '$lookup with an unknown option',
      [{ $lookup: { from: 'o', localField: 'a', foreignField: 'b', as: 'x', db: 'y' } }],
      'INVALID_PIPELINE',
    ],
    [
      '$lookup without from',
      [{ $lookup: { pipeline: [{ $documents: [] }], as: 'x' } }],
      'CROSS_DATABASE_ACCESS',
    ],
    ['$geoNear not first', [{ $match: {} }, { $geoNear: {} }], 'INVALID_PIPELINE'],
    ['$search inside $facet', [{ $facet: { a: [{ $search: {} }] } }], 'INVALID_PIPELINE'],
    ['a stage with two operators', [{ $match: {}, $limit: 1 }], 'INVALID_PIPELINE'],
    ['a non-object stage', ['$match'], 'INVALID_PIPELINE'],
    ['a non-array pipeline', { $match: {} }, 'INVALID_PIPELINE'],
    ['$$USER_ROLES', [{ $addFields: { r: '$$USER_ROLES' } }], 'BLOCKED_OPERATOR'],
    ['a NUL in a key', [{ $match: { 'a\u0000b': 1 } }], 'BLOCKED_OPERATOR'],
  ])('rejects %s', (_name, p, expected) => {
    expect(code(p)).toBe(expected);
  });

  it('accepts the maximum number of stages (20) and rejects one more', () => {
    expect(AGGREGATION_LIMITS.maxStages).toBe(20);
    const stages = Array.from({ length: AGGREGATION_LIMITS.maxStages }, () => ({ $match: {} }));
    expect(code(stages)).toBeUndefined();
    expect(code([...stages, { $match: {} }])).toBe('PIPELINE_TOO_LONG');
  });

  it('counts stages of sub-pipelines toward the limit', () => {
    const sub = Array.from({ length: AGGREGATION_LIMITS.maxStages }, () => ({ $match: {} }));
    expect(code([{ $facet: { a: sub } }])).toBe('PIPELINE_TOO_LONG');
  });

  it('accepts sub-pipelines nested to the maximum depth and rejects deeper ones', () => {
    const nest = (d: number): unknown[] =>
      d === 0 ? [{ $match: {} }] : [{ $lookup: { from: 'o', pipeline: nest(d - 1), as: 'x' } }];
    expect(code(nest(AGGREGATION_LIMITS.maxPipelineDepth))).toBeUndefined();
    expect(code(nest(AGGREGATION_LIMITS.maxPipelineDepth + 1))).toBe('PIPELINE_TOO_DEEP');
  });

  it('rejects expressions nested deeper than the JSON depth limit', () => {
    let e: unknown = 1;
    for (let i = 0; i < AGGREGATION_LIMITS.maxJsonDepth + 5; i++) e = { $add: [e, 1] };
    expect(code([{ $project: { x: e } }])).toBe('PIPELINE_TOO_DEEP');
  });

  it('accepts exactly the nesting the JSON body parser accepts (32 levels of the body)', () => {
    const nest = (d: number): unknown => (d === 0 ? 1 : [nest(d - 1)]);
    const pipeline = (d: number) => [{ $project: { x: { $literal: nest(d) } } }];
    // { pipeline: [ { $project: { x: { $literal: <d arrays> } } } ] }: the literal's arrays start
    // at level 5 of the body, its innermost value sits at level 5 + d
    expect(pathPastDepth({ pipeline: pipeline(27) })).toBeUndefined();
    expect(code(pipeline(27))).toBeUndefined();
    expect(pathPastDepth({ pipeline: pipeline(28) })).toBe(
      `pipeline.0.$project.x.$literal${'.0'.repeat(28)}`,
    );
    expect(code(pipeline(28))).toBe('PIPELINE_TOO_DEEP');
  });

  it('reports the collections a pipeline reads', () => {
    const { targets } = validatePipeline([
      { $lookup: { from: 'a', localField: 'x', foreignField: 'y', as: 'z' } },
      { $facet: { f: [{ $unionWith: 'b' }] } },
      { $graphLookup: { from: 'c', startWith: '$x', connectFromField: 'x', connectToField: 'y', as: 'g' } },
    ]);
    expect([...targets].sort()).toEqual(['a', 'b', 'c']);
  });
});
