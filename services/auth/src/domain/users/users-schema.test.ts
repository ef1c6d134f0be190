import { unsafeKeys, usersSchemaBody, validateProfile, type SchemaField } from './users-schema';

const fields: SchemaField[] = [
  { key: 'username', type: 'String', required: true },
  { key: 'age', type: 'Number' },
  { key: 'born', type: 'Date' },
  { key: 'prefs', type: 'Object', fields: [{ key: 'theme', type: 'String', required: true }] },
  { key: 'tags', type: 'Array', items: { type: 'String' } },
];

describe('validateProfile', () => {
  it('accepts a conforming profile and unknown keys', () => {
    expect(
      validateProfile(
        fields,
        { username: 'a', age: 3, born: '2000-01-02', prefs: { theme: 'x' }, tags: ['t'], extra: 1 },
        'all',
      ),
    ).toEqual([]);
  });
  it('reports missing required fields on signup but not on a partial update', () => {
    expect(validateProfile(fields, {}, 'all')).toEqual([{ path: 'username', message: 'is required' }]);
    expect(validateProfile(fields, { age: 1 }, 'present')).toEqual([]);
    expect(validateProfile(fields, { username: null }, 'present')).toEqual([
      { path: 'username', message: 'is required' },
    ]);
  });
  it('reports wrong types with their paths, nested and in arrays', () => {
    const out = validateProfile(
      fields,
      { username: 1, age: '3', born: 'nope', prefs: { theme: 2 }, tags: ['a', 3] },
      'all',
    );
    expect(out.map((d) => d.path)).toEqual(['username', 'age', 'born', 'prefs.theme', 'tags.1']);
  });
});

describe('unsafeKeys', () => {
  it('refuses operator-like and dotted names at any depth, and deep nesting', () => {
    expect(unsafeKeys({ a: { $gt: 1 } })).toHaveLength(1);
    expect(unsafeKeys({ 'a.b': 1 })).toHaveLength(1);
    expect(unsafeKeys({ a: [{ ok: 1 }] })).toEqual([]);
    for (const bad of ['userId\uFEFF', 'a\tb', 'a\u200bb', 'a\u202eb', '', 'k'.repeat(257)])
      expect(unsafeKeys({ nested: { [bad]: 1 } })).toEqual([
        { path: `nested.${bad}`, message: expect.any(String) },
      ]);
    expect(unsafeKeys({ ['k'.repeat(256)]: 1 })).toEqual([]);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 12; i++) deep = { d: deep };
    expect(unsafeKeys(deep).length).toBeGreaterThan(0);
  });
});

describe('usersSchemaBody', () => {
  it('refuses reserved and duplicate keys and unknown types', () => {
    expect(usersSchemaBody.safeParse({ fields: [{ key: 'email', type: 'String' }] }).success).toBe(false);
    expect(
      usersSchemaBody.safeParse({
        fields: [
          { key: 'a', type: 'String' },
          { key: 'a', type: 'Number' },
        ],
      }).success,
    ).toBe(false);
    expect(usersSchemaBody.safeParse({ fields: [{ key: 'a', type: 'Blob' }] }).success).toBe(false);
    expect(usersSchemaBody.safeParse({ fields: [{ key: 'a', type: 'String', note: 'kept' }] }).success).toBe(
      true,
    );
  });
});
