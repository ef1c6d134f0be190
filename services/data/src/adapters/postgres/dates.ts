import type { CollectionSchema, ItemDef } from '../../domain/collections/collection';

/**
 * jsonb has no date type: Date-typed schema fields are stored as ISO-8601 strings (which sort and
 * compare as the dates they are) and turned back into Dates on the way out, by the schema.
 */
function revive(def: ItemDef, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (def.type) {
    case 'Date': {
      if (typeof value !== 'string') return value;
      const t = Date.parse(value);
      return Number.isNaN(t) ? value : new Date(t);
    }
    case 'Object':
      if (!def.fields || typeof value !== 'object' || Array.isArray(value)) return value;
      return reviveFields(def.fields, value as Record<string, unknown>);
    case 'Array':
      return def.items && Array.isArray(value) ? value.map((v) => revive(def.items as ItemDef, v)) : value;
    case 'String':
    case 'Number':
    case 'Boolean':
      return value;
  }
}

function reviveFields(
  fields: Array<ItemDef & { key: string }>,
  obj: Record<string, unknown>,
): Record<string, unknown> {
  let out = obj;
  for (const f of fields) {
    if (!(f.key in obj)) continue;
    const v = revive(f, obj[f.key]);
    if (v !== obj[f.key]) {
      if (out === obj) out = { ...obj };
      out[f.key] = v;
    }
  }
  return out;
}

const datedSchemas = new WeakMap<CollectionSchema, boolean>();

/** Whether a schema has any Date field at all (most have none: then nothing is walked). */
export function hasDates(schema: CollectionSchema | null): boolean {
  if (!schema) return false;
  // asked once per document read: remembered per schema object (a changed schema is a new one)
  let dated = datedSchemas.get(schema);
  if (dated === undefined) {
    const walk = (d: ItemDef): boolean =>
      d.type === 'Date' || (d.fields ?? []).some(walk) || (d.items ? walk(d.items) : false);
    dated = schema.fields.some(walk);
    datedSchemas.set(schema, dated);
  }
  return dated;
}

export function reviveDates(
  schema: CollectionSchema | null,
  body: Record<string, unknown>,
): Record<string, unknown> {
  return schema && hasDates(schema) ? reviveFields(schema.fields, body) : body;
}

/**
 * Whether a field path reaches into a schema field that holds Dates (at any depth): its stored
 * form (an ISO string) does not compare, sort or group as MongoDB's Date does.
 */
export function touchesDates(schema: CollectionSchema | null, path: string): boolean {
  if (!schema || !hasDates(schema)) return false;
  const walk = (d: ItemDef): boolean =>
    d.type === 'Date' || (d.fields ?? []).some(walk) || (d.items ? walk(d.items) : false);
  const top = schema.fields.find((f) => f.key === path.split('.')[0]);
  return top !== undefined && walk(top);
}
