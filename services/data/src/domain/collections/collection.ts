import { z } from 'zod';
import { errors, type ProjectId } from '@baas/common';

export const FIELD_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface ItemDef {
  type: FieldType;
  fields?: FieldDef[];
  items?: ItemDef;
}
export interface FieldDef extends ItemDef {
  key: string;
  required?: boolean;
  unique?: boolean;
  /** Declared for equality filters: their totals and newest pages cost what a page holds. */
  index?: boolean;
}
export interface CollectionSchema {
  fields: FieldDef[];
}
export type RlsMode = 'public-read' | 'private';
export interface RlsConfig {
  enabled: boolean;
  mode: RlsMode;
  ownerField: string;
}

export interface CollectionDef {
  projectId: ProjectId;
  name: string;
  schema: CollectionSchema | null;
  rls: RlsConfig;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields the service manages; a client never sets them through a document body. */
export const SYSTEM_FIELDS = new Set(['_id', 'isDeleted', 'deletedAt', 'createdAt', 'updatedAt']);
/** Outbox bookkeeping inside documents; never readable, writable or filterable by clients. */
export const INTERNAL_FIELDS = new Set(['_outbox', '_purgeAfterRelay']);
/** Names that would turn into prototype pollution if they ever reached an object assignment. */
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Collection names map 1:1 to database collection names, so no '.', '$', NUL or `system.` is possible. */
export const COLLECTION_NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const FIELD_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function isReservedCollectionName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'users' || lower.startsWith('system');
}

export function isValidCollectionName(name: string): boolean {
  return COLLECTION_NAME_RE.test(name) && !isReservedCollectionName(name);
}

const typeSchema = z.string().transform((t, ctx) => {
  const found = FIELD_TYPES.find((f) => f.toLowerCase() === t.toLowerCase());
  if (!found) {
    ctx.addIssue({ code: 'custom', message: `type must be one of ${FIELD_TYPES.join(', ')}` });
    return z.NEVER;
  }
  return found;
});

const itemSchema: z.ZodType<ItemDef> = z
  .lazy(() =>
    z.object({
      type: typeSchema,
      fields: z.array(fieldSchema).max(200).optional(),
      items: itemSchema.optional(),
    }),
  )
  .meta({ id: 'CollectionItem' });

const fieldSchema: z.ZodType<FieldDef> = z
  .lazy(() =>
    z.object({
      key: z.string().regex(FIELD_KEY_RE, 'key must be a plain field name (letters, digits, _; at most 64)'),
      type: typeSchema,
      required: z.boolean().optional(),
      unique: z.boolean().optional(),
      index: z.boolean().optional(),
      fields: z.array(fieldSchema).max(200).optional(),
      items: itemSchema.optional(),
    }),
  )
  .meta({ id: 'CollectionField' });

export const collectionSchemaSchema = z.object({ fields: z.array(fieldSchema).max(200) });

export const rlsSchema = z.object(
  {
    enabled: z.boolean(),
    // A missing mode fails safe: only owners read.
    mode: z.enum(['public-read', 'private']).default('private'),
    ownerField: z
      .string()
      .regex(FIELD_KEY_RE, 'ownerField must be a plain top-level field name')
      .default('userId'),
  },
  {
    // null used to mean "no RLS"; it is too easy to send by accident to be the way RLS goes off.
    error: (issue) =>
      issue.input === null
        ? 'rls may not be null: send { "enabled": false } to turn RLS off, or leave rls out to keep the current setting'
        : undefined,
  },
);

/** `rls` left out keeps the current setting (see registerCollection); `schema` left out or null means none. */
export const registerBodySchema = z.object({
  schema: collectionSchemaSchema.nullable().optional(),
  rls: rlsSchema.optional(),
});
export type RegisterBody = z.infer<typeof registerBodySchema>;

/** Fields with `index: true` a collection may declare. */
export const MAX_INDEXED_FIELDS = 8;

export const RLS_DISABLED: RlsConfig = { enabled: false, mode: 'public-read', ownerField: 'userId' };

/** Checks that z cannot express: unique keys per level, no system fields, a String owner field. */
export function checkSchemaSemantics(schema: CollectionSchema | null, rls: RlsConfig): void {
  if (!schema) return;
  const problems: { path: string; message: string }[] = [];
  const walk = (fields: FieldDef[] | undefined, prefix: string, top: boolean): void => {
    const seen = new Set<string>();
    for (const f of fields ?? []) {
      const path = prefix ? `${prefix}.${f.key}` : f.key;
      if (seen.has(f.key)) problems.push({ path, message: 'duplicate key' });
      seen.add(f.key);
      if (top && (SYSTEM_FIELDS.has(f.key) || INTERNAL_FIELDS.has(f.key)))
        problems.push({ path, message: 'is managed by the service and cannot be declared' });
      if (FORBIDDEN_KEYS.has(f.key)) problems.push({ path, message: 'is not an allowed field name' });
      if (f.fields && f.type !== 'Object') problems.push({ path, message: 'fields is only for Object' });
      if (f.items && f.type !== 'Array') problems.push({ path, message: 'items is only for Array' });
      if (f.index && f.type === 'Object')
        problems.push({ path, message: 'index is for String, Number, Boolean, Date or Array fields' });
      if (top && rls.enabled && f.key === rls.ownerField && f.type !== 'String')
        problems.push({ path, message: 'the owner field must be a String' });
      walk(f.fields, path, false);
    }
  };
  walk(schema.fields, '', true);
  const indexed = indexedPaths(schema);
  if (indexed.length > MAX_INDEXED_FIELDS)
    problems.push({
      path: indexed[MAX_INDEXED_FIELDS] as string,
      message: `at most ${MAX_INDEXED_FIELDS} fields of a collection may have index: true`,
    });
  if (problems.length > 0) throw errors.validation('Invalid collection schema', problems);
}

/** Dotted paths of every unique field, at any depth of Object fields (not inside arrays). */
export function uniquePaths(schema: CollectionSchema | null): string[] {
  const out: string[] = [];
  const walk = (fields: FieldDef[] | undefined, prefix: string): void => {
    for (const f of fields ?? []) {
      const path = prefix ? `${prefix}.${f.key}` : f.key;
      if (f.unique) out.push(path);
      if (f.type === 'Object') walk(f.fields, path);
    }
  };
  walk(schema?.fields, '');
  return out;
}

/** Dotted paths of every field with `index: true`, at any depth of Object fields. */
export function indexedPaths(schema: CollectionSchema | null): string[] {
  const out: string[] = [];
  const walk = (fields: FieldDef[] | undefined, prefix: string): void => {
    for (const f of fields ?? []) {
      const path = prefix ? `${prefix}.${f.key}` : f.key;
      if (f.index && f.type !== 'Object') out.push(path);
      if (f.type === 'Object') walk(f.fields, path);
    }
  };
  walk(schema?.fields, '');
  return out;
}

/** The schema entry describing a dotted path, looking through Object fields and Array items. */
export function fieldAt(schema: CollectionSchema | null, path: string): ItemDef | undefined {
  if (!schema) return undefined;
  let current: ItemDef = { type: 'Object', fields: schema.fields };
  for (const seg of path.split('.')) {
    if (current.type === 'Array') {
      if (!/^\d+$/.test(seg) || !current.items) return undefined;
      current = current.items;
      continue;
    }
    if (current.type !== 'Object') return undefined;
    const next: ItemDef | undefined = current.fields?.find((f) => f.key === seg);
    if (!next) return undefined;
    current = next;
  }
  return current;
}

export interface CollectionView {
  name: string;
  schema: CollectionSchema | null;
  rls: RlsConfig;
  createdAt: string;
  updatedAt: string;
}

export function collectionView(def: CollectionDef): CollectionView {
  return {
    name: def.name,
    schema: def.schema,
    rls: def.rls,
    createdAt: def.createdAt.toISOString(),
    updatedAt: def.updatedAt.toISOString(),
  };
}
