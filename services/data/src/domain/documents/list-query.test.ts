import { trustedProjectId } from '@baas/common';
import type { CollectionDef } from '../collections/collection';
import { parseListQuery } from './list-query';
import { sanitizeInsert, sanitizeUpdate } from './sanitize';

const def: CollectionDef = {
  projectId: trustedProjectId('0123456789abcdef01234567'),
  name: 'things',
  schema: {
    fields: [
      { key: 'age', type: 'Number' },
      { key: 'ok', type: 'Boolean' },
      { key: 'at', type: 'Date' },
      { key: 'name', type: 'String' },
      { key: 'tags', type: 'Array', items: { type: 'Number' } },
    ],
  },
  rls: { enabled: true, mode: 'private', ownerField: 'userId' },
  createdAt: new Date(),
  updatedAt: new Date(),
};
const q = (s: string) => parseListQuery([...new URLSearchParams(s)], def);
const fails = (s: string) => {
  try {
    q(s);
    return false;
  } catch (e) {
    return (e as { status: number }).status === 400;
  }
};

describe('list query parsing', () => {
  it('defaults to page 1, limit 20, newest first, no trash', () => {
    expect(q('')).toMatchObject({
      pagination: { mode: 'page', page: 1 },
      limit: 20,
      sort: [
        { field: 'createdAt', direction: -1 },
        { field: '_id', direction: -1 },
      ],
      includeDeleted: false,
      conditions: [],
    });
  });

  it('clamps limit to 100 and accepts it at the limit', () => {
    expect(q('limit=100').limit).toBe(100);
    expect(q('limit=101').limit).toBe(100);
  });

  it.each([
    'page=0',
    'page=-1',
    'page=abc',
    'page=1.5',
    'limit=0',
    'limit=x',
    'limit=',
    'page=99999999999999999999',
    'include_deleted=maybe',
  ])('rejects %s with 400', (s) => expect(fails(s)).toBe(true));

  it('coerces values by the schema type', () => {
    expect(q('age_gt=18&ok=true&at_lt=2024-01-01').conditions).toEqual([
      { op: 'gt', field: 'age', value: 18 },
      { op: 'eq', field: 'ok', value: true },
      { op: 'lt', field: 'at', value: new Date('2024-01-01') },
    ]);
    expect(q('tags=3').conditions).toEqual([{ op: 'eq', field: 'tags', value: 3 }]);
    expect(q('_id=0123456789ABCDEF01234567').conditions).toEqual([
      { op: 'eq', field: '_id', value: '0123456789abcdef01234567' },
    ]);
    expect(fails('_id=xyz')).toBe(true);
    expect(fails('age=abc')).toBe(true);
    expect(fails('ok=yes')).toBe(true);
  });

  it('matches both readings of an untyped value', () => {
    expect(q('score=5').conditions).toEqual([{ op: 'in', field: 'score', values: ['5', 5] }]);
    expect(q('score_gt=5').conditions).toEqual([{ op: 'gt', field: 'score', value: 5 }]);
    expect(q('score_ne=5').conditions).toEqual([{ op: 'nin', field: 'score', values: ['5', 5] }]);
  });

  it('builds _in, _ne and _regex conditions with their bounds', () => {
    expect(q('name_in=a,b').conditions).toEqual([{ op: 'in', field: 'name', values: ['a', 'b'] }]);
    expect(q('name_ne=a').conditions).toEqual([{ op: 'ne', field: 'name', value: 'a' }]);
    expect(q(`name_regex=${'a'.repeat(100)}`).conditions).toHaveLength(1);
    expect(fails(`name_regex=${'a'.repeat(101)}`)).toBe(true);
    expect(fails('name_regex=(')).toBe(true);
    expect(q(`name_in=${Array(100).fill('x').join(',')}`).conditions).toHaveLength(1);
    expect(fails(`name_in=${Array(101).fill('x').join(',')}`)).toBe(true);
  });

  it('refuses the regex syntax PostgreSQL cannot run, on every store, with UNSUPPORTED_REGEX', () => {
    const code = (pattern: string) => {
      try {
        q(`name_regex=${encodeURIComponent(pattern)}`);
        return 'accepted';
      } catch (e) {
        return (e as { code: string }).code;
      }
    };
    for (const pattern of ['(?<word>a)', '(?<w>a)\\k<w>', '\\p{L}', '\\P{L}', '(?i)a', '(?i:a)'])
      expect([pattern, code(pattern)]).toEqual([pattern, 'UNSUPPORTED_REGEX']);
    // lookarounds, \b and ordinary groups are portable
    for (const pattern of ['(?<=a)b', '(?<!a)b', '(?=a)', '(?:ab)+', '\\bword\\b', '^(a|b)'])
      expect([pattern, code(pattern)]).toEqual([pattern, 'accepted']);
  });

  it.each([
    '$where=1',
    'a[$ne]=x',
    '__proto__=1',
    'a.__proto__.b=1',
    'constructor.prototype=1',
    '_outbox=1',
    '$or=x',
    'a%00b=1',
    `${'a'.repeat(65)}=1`,
  ])('never turns %s into an operator (400)', (s) => expect(fails(s)).toBe(true));

  it('rejects a parameter given twice', () => expect(fails('name=a&name=b')).toBe(true));

  // Regression (property test, FC_SEED=17998): `toString` read Object.prototype.toString as the
  // field's type, and the request failed with a TypeError (a 500) instead of filtering.
  it.each(['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'])(
    'filters a field named like an Object.prototype member (%s) as a plain field',
    (field) => {
      expect(q(`${field}=x`).conditions).toEqual([{ op: 'eq', field, value: 'x' }]);
      expect(q(`${field}_gt=2`).conditions).toEqual([{ op: 'gt', field, value: 2 }]);
      expect(q(`${field}_in=a,1`).conditions).toEqual([{ op: 'in', field, values: ['a', '1', 1] }]);
    },
  );

  it('selects cursor pagination with an empty cursor, over any sort', () => {
    expect(q('cursor=').pagination).toEqual({ mode: 'cursor', raw: '', after: null });
    expect(q('cursor=&sort=name').pagination).toEqual({ mode: 'cursor', raw: '', after: null });
    expect(fails('cursor=garbage!')).toBe(true);
    expect(fails('cursor=&page=2')).toBe(true);
  });

  it('sorts with - for descending and a stable _id tiebreak', () => {
    expect(q('sort=-age').sort).toEqual([
      { field: 'age', direction: -1 },
      { field: '_id', direction: -1 },
    ]);
    expect(q('sort=name,-age').sort).toEqual([
      { field: 'name', direction: 1 },
      { field: 'age', direction: -1 },
      { field: '_id', direction: -1 },
    ]);
    expect(fails('sort=$natural')).toBe(true);
    expect(fails('sort=a,a')).toBe(true);
  });
});

describe('body sanitizing', () => {
  it('strips top-level $ keys and ignores service-managed fields on insert', () => {
    expect(sanitizeInsert({ a: 1, $set: { x: 1 }, _id: 'x', isDeleted: true, createdAt: 'y' })).toEqual({
      a: 1,
    });
  });

  it.each([
    { a: { $gt: 1 } },
    { a: [{ $where: 'x' }] },
    { a: { 'b.c': 1 } },
    { 'a.b': 1 },
    { _outbox: [] },
    { _purgeAfterRelay: true },
    JSON.parse('{"__proto__": {"x": 1}}'),
    { '': 1 },
  ])('rejects %j on insert', (b) => expect(() => sanitizeInsert(b)).toThrow());

  it('keeps dot-notation paths on update and rejects operator segments and conflicts', () => {
    expect(sanitizeUpdate({ 'meta.views': 2, $inc: { a: 1 } })).toEqual({ 'meta.views': 2 });
    expect(() => sanitizeUpdate({ 'meta.$x': 1 })).toThrow();
    expect(() => sanitizeUpdate({ meta: 1, 'meta.views': 2 })).toThrow();
    expect(() => sanitizeUpdate({ '_outbox.0': 1 })).toThrow();
    expect(() => sanitizeUpdate({ 'a..b': 1 })).toThrow();
    expect(() => sanitizeUpdate([1])).toThrow();
  });
});
