/**
 * The documents table's query: field filters, sort, page size, cursor and trash, as the list
 * route takes them (`field=value`, `field_ne`, `field_gt`, `field_lt`, `field_in`, `field_regex`).
 */
export const FILTER_OPERATORS = [
  { op: 'eq', suffix: '', label: 'equals' },
  { op: 'ne', suffix: '_ne', label: 'is not' },
  { op: 'gt', suffix: '_gt', label: 'greater than' },
  { op: 'lt', suffix: '_lt', label: 'less than' },
  { op: 'in', suffix: '_in', label: 'is one of (comma-separated)' },
  { op: 'regex', suffix: '_regex', label: 'matches the pattern' },
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number]['op'];

export interface FieldFilter {
  field: string;
  op: FilterOperator;
  value: string;
}

export interface DocumentQueryInput {
  filters: readonly FieldFilter[];
  /** Up to 5 comma-separated fields, `-` for descending; empty: newest first. */
  sort: string;
  limit: number;
  cursor: string;
  includeTrashed: boolean;
}

/** Query names the list route gives a meaning of its own: no field filter may take them. */
const RESERVED = new Set(['page', 'limit', 'cursor', 'sort', 'include_deleted']);
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Problems of the filters (by row, 0-based), before the API is asked. */
export function filterProblems(filters: readonly FieldFilter[]): Map<number, string> {
  const out = new Map<number, string>();
  filters.forEach((f, i) => {
    const field = f.field.trim();
    if (field === '') out.set(i, 'Name a field.');
    else if (!FIELD_PATH.test(field)) out.set(i, 'A field name or dot path (address.city).');
    else if (RESERVED.has(field)) out.set(i, `"${field}" is a list parameter, not filterable here.`);
    else if (f.op === 'in' && f.value.split(',').length > 100) out.set(i, 'At most 100 values.');
    else if (f.op === 'regex' && f.value.length > 100) out.set(i, 'At most 100 characters.');
  });
  return out;
}

export function documentQuery(input: DocumentQueryInput): Record<string, string> {
  const q: Record<string, string> = {};
  for (const f of input.filters) {
    const field = f.field.trim();
    if (field === '') continue;
    const suffix = FILTER_OPERATORS.find((o) => o.op === f.op)?.suffix ?? '';
    q[`${field}${suffix}`] = f.value;
  }
  q.limit = String(input.limit);
  q.cursor = input.cursor;
  const sort = input.sort.replace(/\s+/g, '');
  if (sort !== '') q.sort = sort;
  if (input.includeTrashed) q.include_deleted = 'true';
  return q;
}

const MANAGED = new Set(['_id', 'isDeleted', 'deletedAt', 'createdAt', 'updatedAt']);

/** The table's columns: the schema's top-level fields, else the fields the page's documents have. */
export function documentColumns(
  schemaKeys: readonly string[],
  items: ReadonlyArray<Record<string, unknown>>,
  max = 6,
): string[] {
  if (schemaKeys.length > 0) return schemaKeys.slice(0, max);
  const seen: string[] = [];
  for (const item of items)
    for (const k of Object.keys(item)) if (!MANAGED.has(k) && !seen.includes(k)) seen.push(k);
  return seen.slice(0, max);
}

/** A cell: strings as they are, anything else as JSON, cut to `max` characters. */
export function cellText(value: unknown, max = 60): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A document as it is edited: its own fields only (the managed ones are the server's). */
export function editableBody(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!MANAGED.has(k)) out[k] = v;
  return out;
}

/** Where a JSON text fails to parse, as a line and column people can find. */
export function parseJsonObject(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = /position (\d+)/.exec(message);
    if (at) {
      const pos = Number(at[1]);
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const column = pos - before.lastIndexOf('\n');
      return { ok: false, message: `Not valid JSON at line ${line}, column ${column}: ${message}` };
    }
    return { ok: false, message: `Not valid JSON: ${message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'A document is a JSON object: { "field": value, … }' };
  return { ok: true, value: value as Record<string, unknown> };
}
