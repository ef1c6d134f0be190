import { errors } from '@baas/common';

/**
 * Template variables come from the caller. Before rendering they are copied into plain,
 * prototype-less objects (so `{{constructor}}` finds nothing), and every URL-like value is
 * reduced to a safe http/https URL: a `javascript:`, `data:` or `vbscript:` value never reaches
 * an href, escaped or not. Unsafe values become the empty string.
 */
const URL_KEY = /(url|link|href|uri|src)$/i;
const DANGEROUS_SCHEME = /^(javascript|vbscript|data|file|blob|about|jar):/;
const HAS_SCHEME_AND_AUTHORITY = /^\s*([a-z][a-z0-9+.-]*:)?\/\//i;
const MAX_DEPTH = 8;
const MAX_NODES = 5000;
/** A section iterates an array once per element: bounded here, and the render is bounded too. */
export const MAX_ARRAY_ITEMS = 100;

// Browsers ignore control characters and whitespace inside a scheme.
// eslint-disable-next-line no-control-regex
const IGNORED_IN_SCHEME = /[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]/g;

/** What a browser would see once entities are decoded and ignorable characters dropped. */
function normalisedScheme(value: string): string {
  const decoded = value
    .replace(/&#x([0-9a-f]+);?/gi, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16) % 0x110000))
    .replace(/&#(\d+);?/g, (_m, d: string) => String.fromCodePoint(Number(d) % 0x110000))
    .replace(/&colon;/gi, ':')
    .replace(/&(tab|newline);/gi, '');
  return decoded.replace(IGNORED_IN_SCHEME, '').toLowerCase();
}

export function safeUrl(value: string): string {
  if (DANGEROUS_SCHEME.test(normalisedScheme(value))) return '';
  try {
    const u = new URL(value.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}

function sanitiseString(key: string | undefined, value: string): string {
  if (key !== undefined && URL_KEY.test(key)) return safeUrl(value);
  // A value that is one URL-shaped token is treated as a URL whatever its key; prose that merely
  // starts with one is left alone (it cannot be a usable href anyway).
  if (HAS_SCHEME_AND_AUTHORITY.test(value) && !/\s/.test(value.trim())) return safeUrl(value);
  if (DANGEROUS_SCHEME.test(normalisedScheme(value))) return '';
  return value;
}

export type TemplateView = Record<string, unknown>;

export function sanitizeVariables(input: unknown): TemplateView {
  let nodes = 0;
  const walk = (key: string | undefined, value: unknown, depth: number): unknown => {
    if (++nodes > MAX_NODES) throw errors.validation('`variables` is too large');
    if (depth > MAX_DEPTH) throw errors.validation(`\`variables\` is nested deeper than ${MAX_DEPTH} levels`);
    if (typeof value === 'string') return sanitiseString(key, value);
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_ITEMS)
        throw errors.validation(`An array in \`variables\` has more than ${MAX_ARRAY_ITEMS} items`, [
          {
            path: `variables${key !== undefined ? `.${key}` : ''}`,
            message: `at most ${MAX_ARRAY_ITEMS} items`,
          },
        ]);
      return value.map((v) => walk(key, v, depth + 1));
    }
    if (typeof value === 'object') {
      const out = Object.create(null) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = walk(k, v, depth + 1);
      return out;
    }
    return undefined;
  };
  if (input === undefined) return Object.create(null) as TemplateView;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw errors.validation('`variables` must be an object', [
      { path: 'variables', message: 'must be an object' },
    ]);
  return walk(undefined, input, 0) as TemplateView;
}
