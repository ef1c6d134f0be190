import qs from 'qs';
import { errors } from '../errors';

/**
 * At most this many query parameters a request (security notes 11: a list takes a handful of
 * filters, and thousands of `_regex` filters are work for the store, not a query).
 */
export const MAX_QUERY_PARAMETERS = 100;

/** The refusal of a query string over the limit, whichever parser met it. */
export function tooManyQueryParameters() {
  return errors.validation(`Parameter limit exceeded. Only ${MAX_QUERY_PARAMETERS} parameters allowed.`);
}

/**
 * express's "extended" query parser (qs, prototype keys allowed as express allows them), with
 * limits that refuse instead of silently dropping what is past them: more than 100 parameters, or
 * more than 20 elements in one `a[]=` array, is 400 VALIDATION_FAILED. express parses the query
 * when a route first reads `req.query`, so the error reaches the route's error handler.
 */
export function parseQuery(str: string): Record<string, unknown> {
  try {
    return qs.parse(str, {
      allowPrototypes: true,
      parameterLimit: MAX_QUERY_PARAMETERS,
      throwOnLimitExceeded: true,
    });
  } catch (e) {
    if (e instanceof RangeError) throw errors.validation(e.message);
    throw e;
  }
}
