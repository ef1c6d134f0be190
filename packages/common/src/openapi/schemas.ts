import { z } from 'zod';
import { adminListQuery } from '../admin-list';
import type { ApiRoute } from './route';

/** The contract's error body (every status >= 400). */
export const errorBodySchema = z.object({
  success: z.literal(false),
  error: z.string().describe('The message (same as `message`).'),
  message: z.string(),
  code: z.string().describe('A stable, machine-readable code.'),
  requestId: z.string().describe('The request id, also in the `x-request-id` header.'),
  details: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe('Validation failures: which input, and what is wrong with it.'),
});

/** `{ success: true, data, message }`, the envelope of most answers. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, message: z.string() });
}

/** A page of an admin list (`{ items, cursor, nextCursor, limit }`), newest first. */
export function adminPage<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    cursor: z.string().describe('The cursor this page was asked with (empty for the first).'),
    nextCursor: z.string().nullable().describe('Opaque; null on the last page.'),
    limit: z.number().int(),
  });
}

/** A 24-hex id (project, document, user, template). */
export const hexId = z.string().regex(/^[a-f0-9]{24}$/);

/** `{ success: true, message }`. */
export const okMessage = z.object({ success: z.literal(true), message: z.string() });

/**
 * `GET` of a project's admin list (`?limit=&cursor=`, newest first, `{ items, cursor, nextCursor,
 * limit }`), answered by `service` with `item`s: the part every such route shares.
 */
export function adminListRoute(
  r: Pick<ApiRoute, 'path' | 'operationId' | 'summary' | 'description' | 'tag' | 'service' | 'params'> & {
    item: z.ZodType;
    example: { item: unknown; message: string };
  },
): ApiRoute {
  const { item, example, ...route } = r;
  return {
    ...route,
    method: 'get',
    security: 'admin',
    query: adminListQuery,
    responses: {
      200: {
        description: 'One page.',
        schema: envelope(adminPage(item)),
        example: {
          success: true,
          data: { items: [example.item], cursor: '', nextCursor: null, limit: 20 },
          message: example.message,
        },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  };
}
