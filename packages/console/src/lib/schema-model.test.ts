import {
  flattenSchema,
  fromEditable,
  moveField,
  newField,
  schemaProblems,
  toEditable,
  updateField,
} from './schema-model';

const stored = [
  { key: 'title', type: 'String', required: true, unique: true, index: true, maxLength: 80 },
  {
    key: 'address',
    type: 'Object',
    fields: [{ key: 'city', type: 'String', index: true }],
  },
  { key: 'tags', type: 'Array', items: { type: 'String' } },
  { key: 'lines', type: 'Array', items: { type: 'Object', fields: [{ key: 'qty', type: 'Number' }] } },
];

describe('the schema editor model', () => {
  it('gives back the stored fields unchanged, keeping what the editor does not show', () => {
    expect(fromEditable(toEditable(stored))).toEqual(stored);
  });

  it('drops index for schemas without indexes, and false flags altogether', () => {
    const f = toEditable([{ key: 'nick', type: 'String', index: true, required: false }]);
    expect(fromEditable(f, false)).toEqual([{ key: 'nick', type: 'String' }]);
  });

  it('sends nested fields only for Objects and an element only for Arrays', () => {
    const [f] = toEditable([{ key: 'a', type: 'Object', fields: [{ key: 'b', type: 'Number' }] }]);
    const asString = updateField([f!], f!.uid, (x) => ({ ...x, type: 'String' }));
    expect(fromEditable(asString)).toEqual([{ key: 'a', type: 'String' }]);
    const asArray = updateField([f!], f!.uid, (x) => ({ ...x, type: 'Array', itemType: 'Number' }));
    expect(fromEditable(asArray)).toEqual([{ key: 'a', type: 'Array', items: { type: 'Number' } }]);
  });

  it('names empty, malformed and duplicate keys at every depth', () => {
    const fields = toEditable([
      { key: 'a', type: 'String' },
      { key: 'a', type: 'Number' },
      { key: '9lives', type: 'String' },
      { key: 'obj', type: 'Object', fields: [{ key: '', type: 'String' }] },
      { key: 'arr', type: 'Array', items: { type: 'Object', fields: [{ key: 'x y', type: 'String' }] } },
    ]);
    expect(schemaProblems(fields).map((p) => p.path)).toEqual(['a', '9lives', 'obj.#1', 'arr[].x y']);
    expect(schemaProblems(toEditable(stored))).toEqual([]);
  });

  it('updates, removes and moves a field wherever it is', () => {
    const fields = toEditable(stored);
    const city = fields[1]!.fields[0]!;
    const renamed = updateField(fields, city.uid, (x) => ({ ...x, key: 'town' }));
    expect(fromEditable(renamed)[1]!.fields![0]!.key).toBe('town');
    const removed = updateField(fields, city.uid, () => undefined);
    expect(fromEditable(removed)[1]).toEqual({ key: 'address', type: 'Object' });
    const moved = moveField(fields, fields[0]!.uid, 1);
    expect(moved.map((f) => f.key)).toEqual(['address', 'title', 'tags', 'lines']);
    expect(moveField(moved, moved[0]!.uid, -1).map((f) => f.key)).toEqual(moved.map((f) => f.key));
    expect(newField().uid).not.toBe(newField().uid);
  });
});

describe('the read-only schema view', () => {
  it('lists nested fields after their parent by dotted path', () => {
    expect(
      flattenSchema([
        { key: 'title', type: 'String', required: true },
        { key: 'address', type: 'Object', fields: [{ key: 'city', type: 'String', index: true }] },
        { key: 'tags', type: 'Array', items: { type: 'Object', fields: [{ key: 'name', type: 'String' }] } },
        { key: 'scores', type: 'Array', items: { type: 'Number' }, unique: true },
      ]),
    ).toEqual([
      { path: 'title', type: 'String', required: true, unique: false, index: false },
      { path: 'address', type: 'Object', required: false, unique: false, index: false },
      { path: 'address.city', type: 'String', required: false, unique: false, index: true },
      { path: 'tags', type: 'Array of Object', required: false, unique: false, index: false },
      { path: 'tags[].name', type: 'String', required: false, unique: false, index: false },
      { path: 'scores', type: 'Array of Number', required: false, unique: true, index: false },
    ]);
    expect(flattenSchema(undefined)).toEqual([]);
  });
});
