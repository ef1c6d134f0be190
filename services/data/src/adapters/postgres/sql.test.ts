import { limitSql, newestFirstList } from './sql';

describe('which reads keep one generic plan (newestFirstList)', () => {
  const live = { op: 'eq', field: 'isDeleted', value: false } as const;
  const newest = [
    { field: 'createdAt', direction: -1 },
    { field: '_id', direction: -1 },
  ] as const;

  it('the newest-first list, with a createdAt range', () => {
    expect(newestFirstList(live, newest)).toBe(true);
    expect(
      newestFirstList(
        { op: 'and', conditions: [live, { op: 'gte', field: 'createdAt', value: new Date(0) }] },
        newest,
      ),
    ).toBe(true);
  });

  it('another order, an id, another column or a body field is planned with its values', () => {
    expect(newestFirstList(live, [{ field: 'createdAt', direction: 1 }, newest[1]])).toBe(false);
    expect(newestFirstList(live, [])).toBe(false);
    expect(
      newestFirstList({ op: 'and', conditions: [{ op: 'eq', field: '_id', value: 'x' }, live] }, newest),
    ).toBe(false);
    expect(
      newestFirstList(
        { op: 'and', conditions: [live, { op: 'lt', field: 'deletedAt', value: new Date(0) }] },
        newest,
      ),
    ).toBe(false);
    expect(
      newestFirstList({ op: 'and', conditions: [live, { op: 'eq', field: 'owner', value: 'u1' }] }, newest),
    ).toBe(false);
    expect(
      newestFirstList({ op: 'or', conditions: [live, { op: 'in', field: 'tag', values: ['a'] }] }, newest),
    ).toBe(false);
  });
});

describe('limitSql', () => {
  // a parameter would leave a generic plan blind to the page size (see limitSql)
  it('writes the page size into the statement', () => {
    expect(limitSql(20)).toBe(' LIMIT 20');
    expect(limitSql(0)).toBe(' LIMIT 0');
  });

  it('takes whole numbers only', () => {
    for (const n of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])
      expect(() => limitSql(n)).toThrow(/whole number/);
  });
});
