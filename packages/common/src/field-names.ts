import { errors, type ErrorDetail } from './errors';

/**
 * What a stored field name may be, on every store and for every service that stores client
 * JSON (documents, user profiles). A name a store cannot hold, or one that looks like another
 * name on screen, is refused with its path, before anything is written.
 */
export const FIELD_NAME_MAX_LENGTH = 256;
export const DOCUMENT_MAX_DEPTH = 32;

/**
 * C0 and C1 controls, zero-width and bidi formatting characters (U+200B-U+200F, U+202A-U+202E,
 * U+2060-U+2064) and the BOM (U+FEFF): invisible, or reordering what is shown.
 */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/;

/** Why a field name is refused, or undefined when it is fine. Dots are the caller's concern. */
export function fieldNameProblem(key: string): string | undefined {
  if (key === '') return 'empty field names are not allowed';
  if (key.length > FIELD_NAME_MAX_LENGTH)
    return `field names are at most ${FIELD_NAME_MAX_LENGTH} characters`;
  if (key.startsWith('$')) return "field names may not start with '$'";
  if (INVISIBLE.test(key))
    return 'field names may not contain control, zero-width or bidi formatting characters';
  if (key === '__proto__') return 'this field name is not allowed';
  return undefined;
}

/** What a value nested past DOCUMENT_MAX_DEPTH is told: the error's message and its detail. */
export const TOO_DEEP_MESSAGE = `The JSON body is nested more than ${DOCUMENT_MAX_DEPTH} levels deep`;
export const TOO_DEEP_DETAIL = `nested more than ${DOCUMENT_MAX_DEPTH} levels`;

/**
 * Every key below `value` (objects inside arrays too): a valid name, no '.', at most
 * DOCUMENT_MAX_DEPTH levels. Problems are collected with their paths.
 */
export function storedKeyProblems(
  value: unknown,
  path: string,
  depth: number,
  out: ErrorDetail[] = [],
): ErrorDetail[] {
  if (out.length >= 20) return out;
  if (depth > DOCUMENT_MAX_DEPTH) {
    out.push({ path, message: TOO_DEEP_DETAIL });
    return out;
  }
  if (Array.isArray(value)) value.forEach((v, i) => storedKeyProblems(v, `${path}.${i}`, depth + 1, out));
  else if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      const problem =
        fieldNameProblem(k) ?? (k.includes('.') ? "nested field names may not contain '.'" : undefined);
      if (problem) out.push({ path: p, message: problem });
      else storedKeyProblems(v, p, depth + 1, out);
    }
  }
  return out;
}

/**
 * Throws a 400 naming every offending path. Only nesting past the bound says so in the message,
 * as the JSON body parser does for any body (a route that parses its own body lands here).
 */
export function assertStorableKeys(value: unknown, path: string, depth: number): void {
  const problems = storedKeyProblems(value, path, depth);
  if (problems.length === 0) return;
  const tooDeep = problems.every((p) => p.message === TOO_DEEP_DETAIL);
  throw errors.validation(tooDeep ? TOO_DEEP_MESSAGE : 'Invalid field name', problems);
}
