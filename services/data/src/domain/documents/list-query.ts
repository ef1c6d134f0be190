import { errors } from '@baas/common';
import {
  FORBIDDEN_KEYS,
  INTERNAL_FIELDS,
  fieldAt,
  type CollectionDef,
  type FieldType,
} from '../collections/collection';
import { decodeCursor, type DecodedCursor } from './cursor';
import { parseDocumentId } from './document-id';
import type { Condition, SortKey, Value } from './query';

export const PAGE_DEFAULT = 1;
export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 100;
export const REGEX_MAX_LENGTH = 100;
export const IN_MAX_VALUES = 100;
const MAX_SORT_FIELDS = 5;

/**
 * `_regex` syntax refused on every store, since PostgreSQL's regular expressions cannot say it:
 * named groups and references to them, Unicode property classes, inline flags and modifiers.
 * MongoDB would run some of these; one API whatever the store (400 `UNSUPPORTED_REGEX`).
 */
const UNPORTABLE_REGEX = /\(\?<[^=!]|\\k<|\\p\{|\\P\{|\(\?[a-z]/;

export function refuseUnportableRegex(pattern: string): void {
  if (UNPORTABLE_REGEX.test(pattern))
    throw errors.badRequest(
      'UNSUPPORTED_REGEX',
      'Named groups, \\p{...} and inline flags are not supported in _regex',
    );
}

/** Dotted field paths only: a query-string key can never name an operator or a prototype. */
const FIELD_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z0-9_]{1,64}){0,4}$/;
const RESERVED_PARAMS = new Set(['page', 'limit', 'sort', 'include_deleted', 'cursor']);
const SUFFIXES = ['_gt', '_lt', '_ne', '_in', '_regex'] as const;
type Suffix = (typeof SUFFIXES)[number];
const SYSTEM_TYPES: Record<string, FieldType | 'DocumentId'> = {
  _id: 'DocumentId',
  createdAt: 'Date',
  updatedAt: 'Date',
  deletedAt: 'Date',
  isDeleted: 'Boolean',
};

export type Pagination =
  { mode: 'page'; page: number } | { mode: 'cursor'; raw: string; after: DecodedCursor | null };

export interface ListQuery {
  conditions: Condition[];
  /** Ends with `_id`, so the order is total and a cursor can continue any sort. */
  sort: SortKey[];
  pagination: Pagination;
  limit: number;
  includeDeleted: boolean;
}

function invalid(param: string, message: string): never {
  throw errors.validation('Invalid query parameter', [{ path: param, message }]);
}

function positiveInt(param: string, raw: string): number {
  const n = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) invalid(param, 'must be a positive integer');
  return n;
}

export function parseBool(param: string, raw: string | undefined): boolean {
  if (raw === undefined) return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0' || raw === '') return false;
  return invalid(param, 'must be true or false');
}

function checkField(param: string, field: string): void {
  if (!FIELD_RE.test(field)) invalid(param, 'not a filterable field name');
  const segs = field.split('.');
  if (segs.some((s) => FORBIDDEN_KEYS.has(s))) invalid(param, 'not a filterable field name');
  if (INTERNAL_FIELDS.has(segs[0] as string)) invalid(param, 'not a filterable field name');
}

function typeOf(def: CollectionDef, field: string): FieldType | 'DocumentId' | undefined {
  // Own keys only: `toString`, `valueOf`… are valid field names, not types (found by a property test).
  if (Object.hasOwn(SYSTEM_TYPES, field)) return SYSTEM_TYPES[field];
  const f = fieldAt(def.schema, field);
  // An exact match on an Array field matches an element: coerce to the element type.
  if (f?.type === 'Array') return f.items?.type;
  return f?.type;
}

const NUMERIC = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** The candidate values a query-string value stands for: typed by the schema, or loosely without one. */
function coerce(param: string, type: FieldType | 'DocumentId' | undefined, raw: string): Value[] {
  switch (type) {
    case 'DocumentId': {
      const id = parseDocumentId(raw);
      if (!id) invalid(param, 'must be a 24-hex id');
      return [id];
    }
    case 'Number': {
      const n = NUMERIC.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n)) invalid(param, 'must be a number');
      return [n];
    }
    case 'Boolean':
      if (raw !== 'true' && raw !== 'false') invalid(param, 'must be true or false');
      return [raw === 'true'];
    case 'Date': {
      const t = Date.parse(raw);
      if (Number.isNaN(t)) invalid(param, 'must be a date');
      return [new Date(t)];
    }
    case 'String':
    case 'Object':
    case 'Array':
      return [raw];
    case undefined: {
      // Without a schema the stored JSON type is unknown: match the string and its natural reading.
      const out: Value[] = [raw];
      if (NUMERIC.test(raw) && Number.isFinite(Number(raw))) out.push(Number(raw));
      if (raw === 'true' || raw === 'false') out.push(raw === 'true');
      return out;
    }
  }
}

function condition(
  param: string,
  def: CollectionDef,
  field: string,
  suffix: Suffix | undefined,
  raw: string,
): Condition {
  const type = typeOf(def, field);
  switch (suffix) {
    case undefined: {
      const c = coerce(param, type, raw);
      return c.length === 1 ? { op: 'eq', field, value: c[0] as Value } : { op: 'in', field, values: c };
    }
    case '_ne': {
      const c = coerce(param, type, raw);
      return c.length === 1 ? { op: 'ne', field, value: c[0] as Value } : { op: 'nin', field, values: c };
    }
    case '_gt':
    case '_lt': {
      const c = coerce(param, type, raw);
      // Loosely typed: compare as a number when it reads as one.
      const v = (c.length > 1 && typeof c[1] === 'number' ? c[1] : c[0]) as Exclude<Value, null>;
      return { op: suffix === '_gt' ? 'gt' : 'lt', field, value: v };
    }
    case '_in': {
      const parts = raw.split(',');
      if (parts.length > IN_MAX_VALUES) invalid(param, `at most ${IN_MAX_VALUES} values`);
      return { op: 'in', field, values: parts.flatMap((p) => coerce(param, type, p)) };
    }
    case '_regex': {
      if (raw.length > REGEX_MAX_LENGTH) invalid(param, `regex longer than ${REGEX_MAX_LENGTH} characters`);
      refuseUnportableRegex(raw);
      try {
        new RegExp(raw);
      } catch {
        invalid(param, 'invalid regular expression');
      }
      return { op: 'regex', field, pattern: raw };
    }
  }
}

/** `sort=a,-b`: fields in order, `-` for descending; `_id` closes the order with the last direction. */
function parseSort(raw: string | undefined): SortKey[] {
  if (raw === undefined || raw === '')
    return [
      { field: 'createdAt', direction: -1 },
      { field: '_id', direction: -1 },
    ];
  const parts = raw.split(',');
  if (parts.length > MAX_SORT_FIELDS) invalid('sort', `at most ${MAX_SORT_FIELDS} fields`);
  const sort: SortKey[] = [];
  for (const p of parts) {
    const desc = p.startsWith('-');
    const field = desc ? p.slice(1) : p;
    checkField('sort', field);
    if (sort.some((k) => k.field === field)) invalid('sort', `'${field}' given more than once`);
    sort.push({ field, direction: desc ? -1 : 1 });
  }
  const last = sort[sort.length - 1] as SortKey;
  if (last.field !== '_id') sort.push({ field: '_id', direction: last.direction });
  return sort;
}

/**
 * Parses the raw query string pairs (never the extended parser, so `a[$ne]=x` stays a literal,
 * invalid key). Filters become a list of conditions ANDed with the server's own filters.
 */
export function parseListQuery(pairs: Array<[string, string]>, def: CollectionDef): ListQuery {
  const single = new Map<string, string>();
  const conditions: Condition[] = [];
  for (const [key, value] of pairs) {
    if (single.has(key)) invalid(key, 'given more than once');
    single.set(key, value);
    if (RESERVED_PARAMS.has(key)) continue;
    const suffix = SUFFIXES.find((s) => key.endsWith(s) && key.length > s.length);
    const field = suffix ? key.slice(0, -suffix.length) : key;
    checkField(key, field);
    conditions.push(condition(key, def, field, suffix, value));
  }
  const cursorMode = single.has('cursor');
  if (cursorMode && single.has('page')) invalid('page', 'page and cursor cannot be combined');
  const rawLimit = single.get('limit');
  const limit = rawLimit === undefined ? LIMIT_DEFAULT : Math.min(positiveInt('limit', rawLimit), LIMIT_MAX);
  const sort = parseSort(single.get('sort'));
  let pagination: Pagination;
  if (cursorMode) {
    const raw = single.get('cursor') ?? '';
    pagination = { mode: 'cursor', raw, after: raw === '' ? null : decodeCursor(raw) };
  } else {
    const rawPage = single.get('page');
    pagination = { mode: 'page', page: rawPage === undefined ? PAGE_DEFAULT : positiveInt('page', rawPage) };
  }
  return {
    conditions,
    sort,
    pagination,
    limit,
    includeDeleted: parseBool('include_deleted', single.get('include_deleted')),
  };
}
