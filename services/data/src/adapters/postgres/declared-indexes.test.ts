import { and, eq } from '../../domain/documents/query';
import { indexedEquality, selectorOf } from './declared-indexes';

describe('declared indexes: which filters the entries answer', () => {
  it('the trash flag and one equality on a body field with a scalar', () => {
    expect(indexedEquality(and(eq('isDeleted', false), eq('tag', 'red')))).toEqual({
      path: 'tag',
      json: '"red"',
      deleted: false,
    });
    expect(indexedEquality(and(eq('isDeleted', true), eq('meta.n', 1)))).toEqual({
      path: 'meta.n',
      json: '1',
      deleted: true,
    });
    expect(indexedEquality(and(eq('isDeleted', false), eq('d', new Date(0))))?.json).toBe(
      '"1970-01-01T00:00:00.000Z"',
    );
  });

  it('anything else is counted over the documents', () => {
    expect(indexedEquality(eq('tag', 'red'))).toBeUndefined(); // include_deleted
    expect(indexedEquality(and(eq('isDeleted', false), eq('tag', null)))).toBeUndefined();
    expect(indexedEquality(and(eq('isDeleted', false), eq('createdAt', new Date())))).toBeUndefined();
    expect(indexedEquality(and(eq('isDeleted', false), eq('n', Number.NaN)))).toBeUndefined();
    expect(indexedEquality(and(eq('isDeleted', false), eq('tag', 'a'), eq('userId', 'u')))).toBeUndefined();
    expect(indexedEquality(and(eq('isDeleted', false), { op: 'gt', field: 'n', value: 1 }))).toBeUndefined();
  });

  it('selectors quote every key', () => {
    expect(selectorOf('meta.kind')).toBe('lax $."meta"."kind"[*]');
  });
});
