import { newestFirstList } from './sql';

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
