import {
  cellText,
  documentColumns,
  documentQuery,
  editableBody,
  filterProblems,
  parseJsonObject,
} from './document-query';

describe("the documents table's query", () => {
  it('turns filters into the list route parameters', () => {
    expect(
      documentQuery({
        filters: [
          { field: 'status', op: 'eq', value: 'open' },
          { field: 'n', op: 'gt', value: '3' },
          { field: 'tag', op: 'in', value: 'a,b' },
          { field: 'title', op: 'regex', value: '^Hel' },
          { field: 'address.city', op: 'ne', value: 'Paris' },
          { field: ' ', op: 'lt', value: 'ignored' },
        ],
        sort: '-createdAt, title',
        limit: 50,
        cursor: '',
        includeTrashed: true,
      }),
    ).toEqual({
      status: 'open',
      n_gt: '3',
      tag_in: 'a,b',
      title_regex: '^Hel',
      'address.city_ne': 'Paris',
      limit: '50',
      cursor: '',
      sort: '-createdAt,title',
      include_deleted: 'true',
    });
  });

  it('leaves sort and trash out when not asked for', () => {
    expect(
      documentQuery({ filters: [], sort: ' ', limit: 20, cursor: 'abc', includeTrashed: false }),
    ).toEqual({
      limit: '20',
      cursor: 'abc',
    });
  });

  it('refuses filters the API would refuse, by row', () => {
    const problems = filterProblems([
      { field: 'ok', op: 'eq', value: '1' },
      { field: '', op: 'eq', value: '1' },
      { field: 'a[$ne]', op: 'eq', value: '1' },
      { field: 'limit', op: 'eq', value: '1' },
      { field: 'r', op: 'regex', value: 'x'.repeat(101) },
    ]);
    expect([...problems.keys()]).toEqual([1, 2, 3, 4]);
  });
});

describe('documents as shown and edited', () => {
  it('takes columns from the schema, else from the documents, managed fields apart', () => {
    expect(documentColumns(['a', 'b'], [{ _id: '1', c: 1 }])).toEqual(['a', 'b']);
    expect(
      documentColumns(
        [],
        [
          { _id: '1', createdAt: 'x', c: 1 },
          { d: 2, c: 3 },
        ],
      ),
    ).toEqual(['c', 'd']);
  });

  it('cuts long cells and shows structures as JSON', () => {
    expect(cellText('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(cellText({ a: [1] })).toBe('{"a":[1]}');
    expect(cellText(undefined)).toBe('');
  });

  it('edits only the fields of the document', () => {
    expect(
      editableBody({
        _id: '1',
        isDeleted: false,
        deletedAt: null,
        createdAt: 'x',
        updatedAt: 'y',
        title: 'T',
      }),
    ).toEqual({ title: 'T' });
  });

  it('says where JSON is broken, and that a document is an object', () => {
    expect(parseJsonObject('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    const broken = parseJsonObject('{\n  "a": 1,\n  oops\n}');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^Not valid JSON/);
    expect(parseJsonObject('[1]')).toEqual({ ok: false, message: expect.stringMatching(/JSON object/) });
  });
});
