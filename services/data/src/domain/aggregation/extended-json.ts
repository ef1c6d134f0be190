import { errors } from '@baas/common';

/**
 * JSON has no dates, so a pipeline names one the way MongoDB's Extended JSON does:
 * `{ "$date": "2024-01-05T10:00:00Z" }` (or milliseconds since the epoch). Such an object, with
 * that single key, becomes a date before the pipeline runs; a malformed one is a 400.
 */
export function reviveExtendedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reviveExtendedJson);
  if (typeof v !== 'object' || v === null) return v;
  const entries: Array<[string, unknown]> = Object.entries(v);
  if (entries.length === 1 && entries[0]?.[0] === '$date') {
    const raw: unknown = entries[0][1];
    const t = typeof raw === 'string' ? Date.parse(raw) : typeof raw === 'number' ? raw : NaN;
    if (!Number.isFinite(t) || Math.abs(t) > 8.64e15)
      throw errors.badRequest(
        'INVALID_PIPELINE',
        '$date takes an ISO 8601 string or milliseconds since 1970',
      );
    return new Date(t);
  }
  return Object.fromEntries(entries.map(([k, x]) => [k, reviveExtendedJson(x)]));
}
