import { ObjectId } from 'mongodb';
import { trustedProjectId } from '@baas/common';
import type { CollectionDef } from '../collections/collection';
import { parseListQuery } from './list-query';
import { sanitizeInsert, sanitizeUpdate } from './sanitize';

const def: CollectionDef = {
  projectId: trustedProjectId(new ObjectId().toHexString()),
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
      sort: { createdAt: -1, _id: -1 },
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
      { age: { $gt: 18 } },
      { ok: true },
      { at: { $lt: new Date('2024-01-01') } },
    ]);
    expect(q('tags=3').conditions).toEqual([{ tags: 3 }]);
    expect(fails('age=abc')).toBe(true);
    expect(fails('ok=yes')).toBe(true);
  });

  it('matches both readings of an untyped value', () => {
    expect(q('score=5').conditions).toEqual([{ score: { $in: ['5', 5] } }]);
    expect(q('score_gt=5').conditions).toEqual([{ score: { $gt: 5 } }]);
    expect(q('score_ne=5').conditions).toEqual([{ score: { $nin: ['5', 5] } }]);
  });

  it('builds _in, _ne and _regex conditions with their bounds', () => {
    expect(q('name_in=a,b').conditions).toEqual([{ name: { $in: ['a', 'b'] } }]);
    expect(q('name_ne=a').conditions).toEqual([{ name: { $ne: 'a' } }]);
    expect(q(`name_regex=${'a'.repeat(100)}`).conditions).toHaveLength(1);
    expect(fails(`name_regex=${'a'.repeat(101)}`)).toBe(true);
    expect(fails('name_regex=(')).toBe(true);
    expect(q(`name_in=${Array(100).fill('x').join(',')}`).conditions).toHaveLength(1);
    expect(fails(`name_in=${Array(101).fill('x').join(',')}`)).toBe(true);
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

  it('selects cursor pagination with an empty cursor and allows only the createdAt order', () => {
    expect(q('cursor=').pagination).toEqual({ mode: 'cursor', raw: '', after: null });
    expect(fails('cursor=&sort=name')).toBe(true);
    expect(fails('cursor=garbage!')).toBe(true);
    expect(q('cursor=&sort=createdAt').direction).toBe(1);
  });

  it('sorts with - for descending and a stable _id tiebreak', () => {
    expect(q('sort=-age').sort).toEqual({ age: -1, _id: -1 });
    expect(q('sort=name,-age').sort).toEqual({ name: 1, age: -1, _id: -1 });
    expect(fails('sort=$natural')).toBe(true);
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
