import { pushableMatch } from './match-pushdown';

describe('pushing a leading $match down to SQL', () => {
  it('takes equality, comparisons and $in/$nin on plain fields', () => {
    expect(
      pushableMatch([{ $match: { status: 'open', n: { $gte: 2, $lt: 9 }, tag: { $in: ['a', 'b'] } } }]),
    ).toEqual({
      op: 'and',
      conditions: [
        { op: 'eq', field: 'status', value: 'open' },
        { op: 'gte', field: 'n', value: 2 },
        { op: 'lt', field: 'n', value: 9 },
        { op: 'in', field: 'tag', values: ['a', 'b'] },
      ],
    });
  });

  it('leaves out what it cannot translate, which only widens the read', () => {
    expect(
      pushableMatch([{ $match: { a: 1, b: { $exists: true }, c: { x: 1 }, $expr: { $gt: ['$a', 0] } } }]),
    ).toEqual({ op: 'and', conditions: [{ op: 'eq', field: 'a', value: 1 }] });
    expect(pushableMatch([{ $match: { $expr: { $gt: ['$a', 0] } } }])).toBeUndefined();
  });

  it('takes an $or only when every branch translates whole', () => {
    expect(pushableMatch([{ $match: { $or: [{ a: 1 }, { b: { $gt: 2 } }] } }])).toEqual({
      op: 'and',
      conditions: [
        {
          op: 'or',
          conditions: [
            { op: 'and', conditions: [{ op: 'eq', field: 'a', value: 1 }] },
            { op: 'and', conditions: [{ op: 'gt', field: 'b', value: 2 }] },
          ],
        },
      ],
    });
    expect(pushableMatch([{ $match: { $or: [{ a: 1 }, { b: { $exists: false } }] } }])).toBeUndefined();
    expect(pushableMatch([{ $match: { $or: [{ a: 1 }, { b: { $gt: 1, $size: 2 } }] } }])).toBeUndefined();
  });

  it('pushes nothing when the pipeline does not start with $match, or names operators as fields', () => {
    expect(pushableMatch([{ $sort: { a: 1 } }, { $match: { a: 1 } }])).toBeUndefined();
    expect(pushableMatch([{ $match: { 'a.$b': 1, $where: 'x' } }])).toBeUndefined();
  });
});
