import {
  assertStorableKeys,
  DOCUMENT_MAX_DEPTH,
  FIELD_NAME_MAX_LENGTH,
  fieldNameProblem,
  storedKeyProblems,
} from './field-names';

const nest = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { k: v };
  return v;
};

describe('stored field names', () => {
  it.each([
    ['userId\uFEFF', 'BOM'],
    ['a\tb', 'tab'],
    ['a\u0000b', 'NUL'],
    ['a\u007fb', 'DEL'],
    ['a\u0085b', 'C1 control'],
    ['a\u200bb', 'zero-width space'],
    ['a\u200fb', 'right-to-left mark'],
    ['a\u202eb', 'right-to-left override'],
    ['a\u2060b', 'word joiner'],
    ['a\u2064b', 'invisible plus'],
    ['$where', 'leading $'],
    ['', 'empty'],
    ['__proto__', 'prototype'],
  ])('refuses %j (%s)', (key) => expect(fieldNameProblem(key)).toBeDefined());

  it.each(['name', 'a$b', 'ünïcödé', 'emoji😀', 'with space', 'a\u2065b', 'a\u2010b'])('accepts %j', (key) =>
    expect(fieldNameProblem(key)).toBeUndefined(),
  );

  it('accepts a name at the length limit and refuses one past it', () => {
    expect(fieldNameProblem('a'.repeat(FIELD_NAME_MAX_LENGTH))).toBeUndefined();
    expect(fieldNameProblem('a'.repeat(FIELD_NAME_MAX_LENGTH + 1))).toBeDefined();
  });

  it('accepts nesting at the depth limit and refuses one level more, naming the path', () => {
    expect(storedKeyProblems(nest(DOCUMENT_MAX_DEPTH - 1), 'top', 1)).toEqual([]);
    const deep = storedKeyProblems(nest(DOCUMENT_MAX_DEPTH), 'top', 1);
    expect(deep).toHaveLength(1);
    expect(deep[0]?.path).toMatch(/^top(\.k)+$/);
  });

  it('says a document is too deep as the JSON body parser does, and names bad keys otherwise', () => {
    const thrown = (value: unknown) => {
      try {
        assertStorableKeys(value, 'top', 1);
      } catch (err) {
        return err as { message: string; details: unknown[] };
      }
      throw new Error('accepted');
    };
    expect(() => assertStorableKeys(nest(DOCUMENT_MAX_DEPTH - 1), 'top', 1)).not.toThrow();
    expect(thrown(nest(DOCUMENT_MAX_DEPTH)).message).toBe(
      `The JSON body is nested more than ${DOCUMENT_MAX_DEPTH} levels deep`,
    );
    const both = thrown({ deep: nest(DOCUMENT_MAX_DEPTH), $bad: 1 });
    expect(both.message).toBe('Invalid field name');
    expect(both.details).toHaveLength(2);
  });

  it('finds bad keys inside arrays of objects and dots inside stored keys, with their paths', () => {
    expect(storedKeyProblems({ list: [{ ok: 1 }, { 'a\u200db': 1 }], m: { 'x.y': 1 } }, '', 0)).toEqual([
      { path: 'list.1.a\u200db', message: expect.stringContaining('zero-width') },
      { path: 'm.x.y', message: expect.stringContaining("'.'") },
    ]);
  });
});
