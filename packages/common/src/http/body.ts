import type { RequestHandler } from 'express';
import { errors } from '../errors';
import { DOCUMENT_MAX_DEPTH, TOO_DEEP_DETAIL, TOO_DEEP_MESSAGE } from '../field-names';

/**
 * How deep any JSON body may nest (security notes 11: "depth ≤ 32"), measured as documents are:
 * the body's own fields are level 1, so a value may sit 32 levels below the top and one more level
 * is refused. Rules of their own stay within it (user profiles and mail variables 8, pipelines).
 */
export const JSON_BODY_MAX_DEPTH = DOCUMENT_MAX_DEPTH;

/**
 * The path of the first value nested deeper than `max` (`a.b.0.c`), or undefined. Stops at the
 * first one, so a hostile body costs at most `max` frames of recursion per branch; the path is
 * built only for that value, not for every one walked.
 */
export function pathPastDepth(value: unknown, max: number = JSON_BODY_MAX_DEPTH): string | undefined {
  return deeper(value, 1, max)?.reverse().join('.');
}

/** Of `value`'s children (at `depth`), the first nested past `max`: its path, innermost segment first. */
function deeper(value: unknown, depth: number, max: number): string[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = depth > max ? [] : deeper(value[i], depth + 1, max);
      if (found) {
        found.push(String(i));
        return found;
      }
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const found = depth > max ? [] : deeper((value as Record<string, unknown>)[key], depth + 1, max);
    if (found) {
      found.push(key);
      return found;
    }
  }
  return undefined;
}

/**
 * JSON body parser with a size cap and a nesting bound; malformed JSON, oversize bodies and
 * bodies nested deeper than JSON_BODY_MAX_DEPTH become contract errors (400 VALIDATION_FAILED
 * with the path, as a document nested too deep is refused) before any handler walks them.
 */
export function jsonBody(limit: string | number = '100kb'): RequestHandler {
  // loaded here, as in createServiceApp: a process without an express app never loads it
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as typeof import('express');
  const parse = express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const path = pathPastDepth(req.body);
      if (path === undefined) return next();
      next(errors.validation(TOO_DEEP_MESSAGE, [{ path, message: TOO_DEEP_DETAIL }]));
    });
  };
}
