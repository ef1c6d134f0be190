/**
 * The schema editor's model of a field list (a collection's schema, the users schema) and its
 * way back to the API's shape: `{ key, type, required?, unique?, index?, fields?, items? }`, an
 * Object's keys in `fields`, an Array's element in `items` (`{ type, fields? }`). Whatever else
 * a stored field carries is kept as it was.
 */
export const FIELD_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array'] as const;

export interface EditableField {
  /** Stable identity for the editor's rows (React keys, focus), never sent. */
  uid: string;
  key: string;
  type: string;
  required: boolean;
  unique: boolean;
  index: boolean;
  /** An Object's keys. */
  fields: EditableField[];
  /** An Array's element type, and an Object element's keys. */
  itemType: string;
  itemFields: EditableField[];
  /** Properties of the stored field the editor does not show, kept as they were. */
  extra: Record<string, unknown>;
  itemExtra: Record<string, unknown>;
}

export interface ApiField {
  key: string;
  type: string;
  required?: boolean;
  unique?: boolean;
  index?: boolean;
  fields?: ApiField[];
  items?: { type: string; fields?: ApiField[] } & Record<string, unknown>;
  [other: string]: unknown;
}

export interface SchemaProblem {
  path: string;
  message: string;
}

let counter = 0;
const nextUid = (): string => `f${++counter}`;

export function newField(): EditableField {
  return {
    uid: nextUid(),
    key: '',
    type: 'String',
    required: false,
    unique: false,
    index: false,
    fields: [],
    itemType: 'String',
    itemFields: [],
    extra: {},
    itemExtra: {},
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const SHOWN = new Set(['key', 'type', 'required', 'unique', 'index', 'fields', 'items']);

export function toEditable(fields: unknown): EditableField[] {
  if (!Array.isArray(fields)) return [];
  return fields.filter(isRecord).map((f) => {
    const items = isRecord(f.items) ? f.items : undefined;
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f)) if (!SHOWN.has(k)) extra[k] = v;
    const itemExtra: Record<string, unknown> = {};
    if (items)
      for (const [k, v] of Object.entries(items)) if (k !== 'type' && k !== 'fields') itemExtra[k] = v;
    return {
      uid: nextUid(),
      key: typeof f.key === 'string' ? f.key : '',
      type: typeof f.type === 'string' ? f.type : 'String',
      required: f.required === true,
      unique: f.unique === true,
      index: f.index === true,
      fields: toEditable(f.fields),
      itemType: items && typeof items.type === 'string' ? items.type : 'String',
      itemFields: toEditable(items?.fields),
      extra,
      itemExtra,
    };
  });
}

/** The API's field list; `withIndex` false for schemas without indexes (the users schema). */
export function fromEditable(fields: readonly EditableField[], withIndex = true): ApiField[] {
  return fields.map((f) => {
    const out: ApiField = { ...f.extra, key: f.key.trim(), type: f.type };
    if (f.required) out.required = true;
    if (f.unique) out.unique = true;
    if (withIndex && f.index) out.index = true;
    if (f.type === 'Object' && f.fields.length > 0) out.fields = fromEditable(f.fields, withIndex);
    if (f.type === 'Array') {
      out.items = { ...f.itemExtra, type: f.itemType };
      if (f.itemType === 'Object' && f.itemFields.length > 0)
        out.items.fields = fromEditable(f.itemFields, withIndex);
    }
    return out;
  });
}

/** What the editor can tell before asking the API: names and duplicates, at every depth. */
export function schemaProblems(
  fields: readonly EditableField[],
  keyPattern: RegExp = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
  at = '',
): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const key = f.key.trim();
    const path = at === '' ? key || `#${i + 1}` : `${at}.${key || `#${i + 1}`}`;
    if (key === '') problems.push({ path, message: 'needs a name' });
    else if (!keyPattern.test(key))
      problems.push({ path, message: 'letters, digits and _ only, not starting with a digit' });
    if (key !== '' && seen.has(key)) problems.push({ path, message: 'is declared twice' });
    seen.add(key);
    if (f.type === 'Object') problems.push(...schemaProblems(f.fields, keyPattern, path));
    if (f.type === 'Array' && f.itemType === 'Object')
      problems.push(...schemaProblems(f.itemFields, keyPattern, `${path}[]`));
  });
  return problems;
}

/** Replaces the field `uid` anywhere in the tree (the editor's one update operation). */
export function updateField(
  fields: readonly EditableField[],
  uid: string,
  change: (f: EditableField) => EditableField | undefined,
): EditableField[] {
  const out: EditableField[] = [];
  for (const f of fields) {
    if (f.uid === uid) {
      const changed = change(f);
      if (changed) out.push(changed);
      continue;
    }
    out.push({
      ...f,
      fields: f.fields.length ? updateField(f.fields, uid, change) : f.fields,
      itemFields: f.itemFields.length ? updateField(f.itemFields, uid, change) : f.itemFields,
    });
  }
  return out;
}

/** Moves the field `uid` one place up or down among its siblings. */
export function moveField(fields: readonly EditableField[], uid: string, by: -1 | 1): EditableField[] {
  const i = fields.findIndex((f) => f.uid === uid);
  if (i >= 0) {
    const j = i + by;
    if (j < 0 || j >= fields.length) return [...fields];
    const out = [...fields];
    const a = out[i]!;
    out[i] = out[j]!;
    out[j] = a;
    return out;
  }
  return fields.map((f) => ({
    ...f,
    fields: moveField(f.fields, uid, by),
    itemFields: moveField(f.itemFields, uid, by),
  }));
}

/** A declared field as a read-only list shows it: its dotted path (`address.city`, `tags[]`). */
export interface FlatField {
  path: string;
  type: string;
  required: boolean;
  unique: boolean;
  index: boolean;
}

/** A schema's fields (as the API gives them), nested ones after their parent, for the read-only view. */
export function flattenSchema(fields: unknown): FlatField[] {
  const walk = (list: EditableField[], prefix: string): FlatField[] =>
    list.flatMap((f) => {
      const path = prefix ? `${prefix}.${f.key}` : f.key;
      const type = f.type === 'Array' ? `Array of ${f.itemType}` : f.type;
      const own: FlatField = { path, type, required: f.required, unique: f.unique, index: f.index };
      if (f.type === 'Object') return [own, ...walk(f.fields, path)];
      if (f.type === 'Array' && f.itemType === 'Object') return [own, ...walk(f.itemFields, `${path}[]`)];
      return [own];
    });
  return walk(toEditable(fields), '');
}
