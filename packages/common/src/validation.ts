import type { z } from 'zod';
import { errors, type ErrorDetail } from './errors';

export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
}

/** Parses input at the edge with the one schema of its contract; failures are 400 with details. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'Invalid request body',
): z.infer<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw errors.validation(what, zodDetails(r.error));
  return r.data;
}
