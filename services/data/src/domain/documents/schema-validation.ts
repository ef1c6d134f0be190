import { errors, type ErrorDetail } from '@baas/common';
import type { CollectionSchema, FieldDef, ItemDef } from '../collections/collection';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** ISO-8601 date or date-time; a Date field stores a real date so range filters compare dates. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

function checkItem(def: ItemDef, value: unknown, path: string, problems: ErrorDetail[]): unknown {
  switch (def.type) {
    case 'String':
      if (typeof value !== 'string') problems.push({ path, message: 'must be a String' });
      return value;
    case 'Number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        problems.push({ path, message: 'must be a Number' });
      return value;
    case 'Boolean':
      if (typeof value !== 'boolean') problems.push({ path, message: 'must be a Boolean' });
      return value;
    case 'Date': {
      if (value instanceof Date) return value;
      if (typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)))
        return new Date(value);
      problems.push({ path, message: 'must be a Date (ISO 8601 string)' });
      return value;
    }
    case 'Object':
      if (!isPlainObject(value)) {
        problems.push({ path, message: 'must be an Object' });
        return value;
      }
      return def.fields ? checkFields(def.fields, value, `${path}.`, problems) : value;
    case 'Array':
      if (!Array.isArray(value)) {
        problems.push({ path, message: 'must be an Array' });
        return value;
      }
      return def.items
        ? value.map((v, i) => checkItem(def.items as ItemDef, v, `${path}.${i}`, problems))
        : value;
  }
}

function checkFields(
  fields: FieldDef[],
  obj: Record<string, unknown>,
  prefix: string,
  problems: ErrorDetail[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...obj };
  for (const f of fields) {
    const path = `${prefix}${f.key}`;
    const v = obj[f.key];
    if (v === undefined || v === null) {
      if (f.required) problems.push({ path, message: 'is required' });
      continue;
    }
    out[f.key] = checkItem(f, v, path, problems);
  }
  return out;
}

/**
 * Validates a whole document against the collection schema (required, types, nested fields and
 * array items) and returns it with Date fields as dates. Unknown keys are kept as given.
 */
export function validateDocument<T extends Record<string, unknown>>(
  schema: CollectionSchema | null,
  doc: T,
): T {
  if (!schema) return doc;
  const problems: ErrorDetail[] = [];
  const out = checkFields(schema.fields, doc, '', problems);
  if (problems.length > 0) throw errors.validation('Schema validation failed', problems);
  return out as T;
}

export function getPath(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const seg of path.split('.')) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(seg) ? cur[Number(seg)] : undefined;
    else if (isPlainObject(cur)) cur = Object.prototype.hasOwnProperty.call(cur, seg) ? cur[seg] : undefined;
    else return undefined;
  }
  return cur;
}

/**
 * What a `$set` of dot-notation paths makes of a document, copying only along the paths.
 * A path through a scalar is a 400, as the database would refuse it.
 */
export function applySet<T extends Record<string, unknown>>(doc: T, set: Record<string, unknown>): T {
  const root: Record<string, unknown> = { ...doc };
  for (const [path, value] of Object.entries(set)) {
    const segs = path.split('.');
    let parent: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < segs.length - 1; i++) {
      const seg = segs[i] as string;
      const existing: unknown = Array.isArray(parent) ? parent[Number(seg)] : parent[seg];
      let next: Record<string, unknown> | unknown[];
      if (existing === undefined || existing === null) next = {};
      else if (Array.isArray(existing)) next = [...(existing as unknown[])];
      else if (isPlainObject(existing)) next = { ...existing };
      else
        throw errors.validation('Invalid update path', [
          { path, message: `'${segs.slice(0, i + 1).join('.')}' is not an object` },
        ]);
      if (Array.isArray(parent)) {
        if (!/^\d+$/.test(seg))
          throw errors.validation('Invalid update path', [{ path, message: 'array index expected' }]);
        parent[Number(seg)] = next;
      } else parent[seg] = next;
      parent = next;
    }
    const last = segs[segs.length - 1] as string;
    if (Array.isArray(parent)) {
      if (!/^\d+$/.test(last) || Number(last) > 10000)
        throw errors.validation('Invalid update path', [{ path, message: 'array index expected' }]);
      parent[Number(last)] = value;
    } else parent[last] = value;
  }
  return root as T;
}
