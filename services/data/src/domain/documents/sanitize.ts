import { errors } from '@baas/common';
import { FORBIDDEN_KEYS, INTERNAL_FIELDS, SYSTEM_FIELDS } from '../collections/collection';

const MAX_DEPTH = 32;
const MAX_PATH_SEGMENTS = 16;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function badKey(path: string, message: string): never {
  throw errors.validation('Invalid field name', [{ path, message }]);
}

function checkKey(key: string, path: string): void {
  if (key === '') badKey(path, 'empty field names are not allowed');
  if (key.startsWith('$')) badKey(path, "field names may not start with '$'");
  if (key.includes('.')) badKey(path, "nested field names may not contain '.'");
  if (key.includes('\0')) badKey(path, 'field names may not contain NUL');
  if (key === '__proto__') badKey(path, 'this field name is not allowed');
}

/** Values below the top level: operator-like or dotted keys anywhere are rejected (never stored). */
function checkValue(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH)
    throw errors.validation('Document nested too deeply', [
      { path, message: `more than ${MAX_DEPTH} levels` },
    ]);
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkValue(v, `${path}.${i}`, depth + 1));
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const p = `${path}.${k}`;
      checkKey(k, p);
      checkValue(v, p, depth + 1);
    }
  }
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
      if (seg.startsWith('$')) badKey(key, "path segments may not start with '$'");
      if (seg.includes('\0')) badKey(key, 'field names may not contain NUL');
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
