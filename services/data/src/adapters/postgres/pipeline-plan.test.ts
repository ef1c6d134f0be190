import { exactMatch } from './match-pushdown';
import { planPipeline } from './pipeline-plan';

const any = () => true;

describe('planning the SQL part of a pipeline', () => {
  it('translates $match, $group with the common accumulators, $sort of its rows, $skip, $limit', () => {
    const plan = planPipeline(
      [
        { $match: { status: 'paid' } },
        { $group: { _id: '$customer', n: { $sum: 1 }, total: { $sum: '$total' }, mean: { $avg: '$total' } } },
        { $sort: { total: -1, _id: 1 } },
        { $skip: 2 },
        { $limit: 5 },
        { $project: { _id: 0 } },
      ],
      any,
    );
    expect(plan).toEqual({
      where: [{ op: 'and', conditions: [{ op: 'eq', field: 'status', value: 'paid' }] }],
      group: {
        key: 'customer',
        accumulators: [
          { name: 'n', op: 'count', times: 1 },
          { name: 'total', op: 'sum', field: 'total' },
          { name: 'mean', op: 'avg', field: 'total' },
        ],
      },
      sort: [
        { on: 'accumulator', index: 1, direction: -1 },
        { on: 'key', direction: 1 },
      ],
      skip: 2,
      limit: 5,
      scalarPaths: ['customer'],
      rest: [{ $project: { _id: 0 } }],
    });
  });

  it('takes $min and $max of a usable field, whose values must then be scalars', () => {
    expect(
      planPipeline([{ $group: { _id: null, lo: { $min: '$a.b' }, hi: { $max: '$c' } } }], any),
    ).toMatchObject({
      group: {
        key: null,
        accumulators: [
          { name: 'lo', op: 'min', field: 'a.b' },
          { name: 'hi', op: 'max', field: 'c' },
        ],
      },
      scalarPaths: ['a.b', 'c'],
    });
    expect(
      planPipeline([{ $group: { _id: null, lo: { $min: '$when' } } }], (f) => f !== 'when'),
    ).toBeUndefined();
  });

  it('composes $skip and $limit in their order', () => {
    expect(planPipeline([{ $limit: 10 }, { $skip: 3 }], any)).toMatchObject({ skip: 3, limit: 7 });
    expect(planPipeline([{ $skip: 3 }, { $limit: 10 }], any)).toMatchObject({ skip: 3, limit: 10 });
    expect(planPipeline([{ $limit: 2 }, { $skip: 5 }], any)).toMatchObject({ skip: 5, limit: 0 });
  });

  it('ends a $count and checks the sort fields of documents for scalars', () => {
    expect(planPipeline([{ $sort: { 'a.b': 1, createdAt: -1 } }, { $count: 'n' }], any)).toMatchObject({
      sort: [
        { on: 'field', field: 'a.b', direction: 1 },
        { on: 'field', field: 'createdAt', direction: -1 },
      ],
      count: 'n',
      scalarPaths: ['a.b'],
      rest: [],
    });
  });

  it('leaves in process the first stage that does not translate exactly, and everything after it', () => {
    // $push has no translation: the whole $group stays in process
    expect(planPipeline([{ $group: { _id: '$a', m: { $push: '$b' } } }, { $limit: 1 }], any)).toBeUndefined();
    // a computed key, a compound key
    expect(planPipeline([{ $group: { _id: { $toLower: '$a' }, n: { $sum: 1 } } }], any)).toBeUndefined();
    expect(planPipeline([{ $group: { _id: { a: '$a' } } }], any)).toBeUndefined();
    // the group translates, the sort by a field it does not output does not
    expect(
      planPipeline([{ $group: { _id: '$a', n: { $sum: 1 } } }, { $sort: { other: 1 } }, { $limit: 1 }], any)
        ?.rest,
    ).toEqual([{ $sort: { other: 1 } }, { $limit: 1 }]);
    // a $match that is not exact keeps the whole pipeline on the old path
    expect(planPipeline([{ $match: { a: { $exists: true } } }, { $limit: 1 }], any)).toBeUndefined();
    // a $limit of 0 is MongoDB's error, given by the engine
    expect(planPipeline([{ $sort: { a: 1 } }, { $limit: 0 }], any)?.rest).toEqual([{ $limit: 0 }]);
    // a field whose stored form is not MongoDB's (a Date-typed schema field)
    expect(planPipeline([{ $sort: { when: 1 } }], (f) => f !== 'when')).toBeUndefined();
    expect(planPipeline([{ $group: { _id: '$when' } }], (f) => f !== 'when')).toBeUndefined();
    // an output name JavaScript would take as the prototype
    expect(planPipeline(JSON.parse('[{"$group":{"_id":null,"__proto__":{"$sum":1}}}]'), any)).toBeUndefined();
    // a $match alone changes nothing: the old path reads the documents it narrows
    expect(planPipeline([{ $match: { a: 1 } }], any)).toBeUndefined();
  });
});

describe('an exact $match', () => {
  it('takes scalars, comparisons of numbers and strings, $in/$nin and nested $and/$or', () => {
    expect(
      exactMatch({ a: 1, b: { $gt: 'x', $ne: null }, $or: [{ c: { $in: [1, null] } }, { d: true }] }, any),
    ).toBeDefined();
  });

  it('refuses what SQL does not answer as MongoDB does', () => {
    expect(exactMatch({ 'a.b': null }, any)).toBeUndefined(); // also matches an element without b
    expect(exactMatch({ a: { $gt: true } }, any)).toBeUndefined();
    expect(exactMatch({ _id: { $gt: 'a' } }, any)).toBeUndefined();
    expect(exactMatch({ createdAt: 'x' }, any)).toBeUndefined();
    expect(exactMatch({ a: { $exists: true } }, any)).toBeUndefined();
    expect(exactMatch({ a: { x: 1 } }, any)).toBeUndefined();
    expect(exactMatch({ $nor: [{ a: 1 }] }, any)).toBeUndefined();
    expect(exactMatch({ when: 'x' }, (f) => f !== 'when')).toBeUndefined();
  });
});
