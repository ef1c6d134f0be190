import { DOCUMENT_MAX_DEPTH, assertStorableKeys, errors, fieldNameProblem } from '@baas/common';
import { FORBIDDEN_KEYS, INTERNAL_FIELDS, SYSTEM_FIELDS } from '../collections/collection';

const MAX_PATH_SEGMENTS = DOCUMENT_MAX_DEPTH;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function badKey(path: string, message: string): never {
  throw errors.validation('Invalid field name', [{ path, message }]);
}

/** A stored field name: the platform's rules (no '$', controls, invisible characters...) and no '.'. */
function checkKey(key: string, path: string): void {
  const problem = fieldNameProblem(key);
  if (problem) badKey(path, problem);
  if (key.includes('.')) badKey(path, "nested field names may not contain '.'");
}

/** Values below the top level: every key at any depth follows the same rules (never stored otherwise). */
function checkValue(value: unknown, path: string, depth: number): void {
  assertStorableKeys(value, path, depth);
}

export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw errors.badRequest('INVALID_BODY', 'The body must be a JSON object');
  return body;
}

/**
 * An insert body: top-level `$` keys are stripped (as the spec says), fields the service manages
 * are ignored, outbox bookkeeping keys and nested `$`/dotted keys are rejected.
 */
export function sanitizeInsert(body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(requireObjectBody(body))) {
    if (key.startsWith('$')) continue;
    checkKey(key, key);
    if (INTERNAL_FIELDS.has(key)) badKey(key, 'reserved field');
    if (SYSTEM_FIELDS.has(key)) continue;
    checkValue(value, key, 1);
    out[key] = value;
  }
  return out;
}

/**
 * An update body: top-level keys are dot-notation paths to `$set`. Top-level `$` keys are
 * stripped; paths into service-managed fields are ignored; a path that is a prefix of another
 * (`a` and `a.b`) is a conflict.
 */
export function sanitizeUpdate(body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(requireObjectBody(body))) {
    if (key.startsWith('$')) continue;
    const segments = key.split('.');
    if (segments.length > MAX_PATH_SEGMENTS) badKey(key, 'path too deep');
    for (const seg of segments) {
      if (seg === '') badKey(key, 'empty path segment');
      const problem = fieldNameProblem(seg);
      if (problem) badKey(key, problem);
      if (FORBIDDEN_KEYS.has(seg)) badKey(key, 'this field name is not allowed');
    }
    const first = segments[0] as string;
    if (INTERNAL_FIELDS.has(first)) badKey(key, 'reserved field');
    if (SYSTEM_FIELDS.has(first)) continue;
    checkValue(value, key, 1);
    out[key] = value;
  }
  const paths = new Set(Object.keys(out));
  for (const path of paths) {
    const segs = path.split('.');
    for (let i = 1; i < segs.length; i++) {
      const prefix = segs.slice(0, i).join('.');
      if (paths.has(prefix))
        throw errors.validation('Conflicting update paths', [
          { path, message: `conflicts with '${prefix}'` },
        ]);
    }
  }
  return out;
}
