import { z } from 'zod';
import { fieldNameProblem, type ErrorDetail } from '@baas/common';
import { RESERVED_FIELDS } from './user';

/** The contract's schema form: `{ key, type, required?, unique?, fields?, items? }`. */
export type FieldType = 'String' | 'Number' | 'Boolean' | 'Date' | 'Object' | 'Array';

export interface SchemaField {
  key: string;
  type: FieldType;
  required?: boolean;
  unique?: boolean;
  fields?: SchemaField[];
  items?: { type: FieldType; fields?: SchemaField[] };
}

const fieldKey = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must start with a letter or _ and hold only letters, digits, _ and -');
const fieldType = z.enum(['String', 'Number', 'Boolean', 'Date', 'Object', 'Array']);

// Unknown keys of a field definition are kept as given (contract: "Unknown keys are stored as given").
export const schemaFieldSchema: z.ZodType<SchemaField> = z
  .lazy(() =>
    z
      .object({
        key: fieldKey,
        type: fieldType,
        required: z.boolean().optional(),
        unique: z.boolean().optional(),
        fields: z.array(schemaFieldSchema).max(100).optional(),
        items: z
          .object({ type: fieldType, fields: z.array(schemaFieldSchema).max(100).optional() })
          .loose()
          .optional(),
      })
      .loose(),
  )
  .meta({ id: 'UserField' });

export const usersSchemaBody = z
  .object({ fields: z.array(schemaFieldSchema).max(100) })
  .strict()
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.fields.forEach((f, i) => {
      if (RESERVED_FIELDS.has(f.key))
        ctx.addIssue({
          code: 'custom',
          path: ['fields', i, 'key'],
          message: `"${f.key}" is managed by the server`,
        });
      if (seen.has(f.key))
        ctx.addIssue({ code: 'custom', path: ['fields', i, 'key'], message: 'duplicate key' });
      seen.add(f.key);
    });
  });

function typeOk(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'String':
      return typeof v === 'string';
    case 'Number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'Boolean':
      return typeof v === 'boolean';
    case 'Date':
      return typeof v === 'string' && v.length <= 64 && !Number.isNaN(Date.parse(v));
    case 'Object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'Array':
      return Array.isArray(v);
  }
}

function checkValue(
  type: FieldType,
  sub: SchemaField[] | undefined,
  v: unknown,
  path: string,
  out: ErrorDetail[],
): void {
  if (!typeOk(type, v)) {
    out.push({ path, message: `must be of type ${type}` });
    return;
  }
  if (type === 'Object' && sub) checkObject(sub, v as Record<string, unknown>, path, 'all', out);
}

function checkObject(
  fields: SchemaField[],
  obj: Record<string, unknown>,
  prefix: string,
  mode: 'all' | 'present',
  out: ErrorDetail[],
): void {
  for (const f of fields) {
    const path = prefix ? `${prefix}.${f.key}` : f.key;
    const v = obj[f.key];
    if (v === undefined || v === null) {
      if (f.required && (mode === 'all' || v === null)) out.push({ path, message: 'is required' });
      continue;
    }
    checkValue(f.type, f.fields, v, path, out);
    if (f.type === 'Array' && f.items && Array.isArray(v)) {
      const items = f.items;
      v.forEach((item, i) => checkValue(items.type, items.fields, item, `${path}.${i}`, out));
    }
  }
}

/**
 * Validates profile fields against the users schema. `all`: a signup, where required fields must
 * be present; `present`: a profile update, where only the fields sent are checked (null clears a
 * field, which a required field refuses). Keys the schema does not declare are stored as given.
 */
export function validateProfile(
  fields: SchemaField[],
  profile: Record<string, unknown>,
  mode: 'all' | 'present',
): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  checkObject(fields, profile, '', mode, out);
  return out;
}

/** Profiles are small: nested less deeply than documents may be. */
const MAX_DEPTH = 8;

/**
 * Keys that would be operators or paths in the database, or that no store should hold (the
 * platform's field-name rules: controls, zero-width and bidi characters...), at any depth.
 */
export function unsafeKeys(value: unknown, path = '', depth = 0): ErrorDetail[] {
  if (depth > MAX_DEPTH) return [{ path: path || '(body)', message: `nesting deeper than ${MAX_DEPTH}` }];
  if (Array.isArray(value)) return value.flatMap((v, i) => unsafeKeys(v, `${path}.${i}`, depth + 1));
  if (typeof value !== 'object' || value === null) return [];
  const out: ErrorDetail[] = [];
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    const problem = fieldNameProblem(k) ?? (k.includes('.') ? "field names may not contain '.'" : undefined);
    if (problem) out.push({ path: p, message: problem });
    else out.push(...unsafeKeys(v, p, depth + 1));
  }
  return out;
}
