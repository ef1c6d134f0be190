import { isoText } from '@baas/common';
import { INTERNAL_FIELDS } from '../collections/collection';

function toJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof Date) return isoText(v);
  // An ObjectId (or anything of its kind) a MongoDB pipeline produced.
  if (typeof (v as { toHexString?: unknown }).toHexString === 'function')
    return (v as { toHexString(): string }).toHexString();
  if (Array.isArray(v)) return v.map(toJson);
  const out: Record<string, unknown> = {};
  for (const k in v) if (Object.hasOwn(v, k)) out[k] = toJson((v as Record<string, unknown>)[k]);
  return out;
}

/** A document as clients see it: `_id` 24-hex, dates ISO strings, `deletedAt` null when active. */
export function documentView(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in doc) if (Object.hasOwn(doc, k) && !INTERNAL_FIELDS.has(k)) out[k] = toJson(doc[k]);
  if (!('deletedAt' in out)) out.deletedAt = null;
  return out;
}

/** Aggregation rows: same conversions, whatever shape the pipeline produced. */
export function rowView(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!INTERNAL_FIELDS.has(k)) out[k] = toJson(v);
  return out;
}
