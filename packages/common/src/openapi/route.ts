import type { z } from 'zod';
import type { ServiceName } from '../assertion';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: `key` any project key (`x-api-key`), `secretKey` only a secret key,
 * `keyUser` a key plus an end user's access token (Bearer), `keyOptionalUser` a key and, where
 * RLS asks for one, a token; `admin` the platform admin token; `consoleSession` the console's
 * session cookie (`baas_console`, routed as public: the auth service checks it); `public` nothing.
 */
export type ApiSecurity =
  'key' | 'secretKey' | 'keyUser' | 'keyOptionalUser' | 'admin' | 'consoleSession' | 'public';

export interface ApiResponse {
  description: string;
  /** The answer's schema (JSON unless `contentType` says otherwise). */
  schema?: z.ZodType;
  contentType?: string;
  example?: unknown;
}

/**
 * One route as a client sees it through the gateway: the registry beside each service's routes
 * lists these, built from the same zod schemas the handlers validate with, and the generator
 * (`buildOpenApiDocument`) turns them into the OpenAPI document.
 */
export interface ApiRoute {
  method: HttpMethod;
  /** OpenAPI path template: `/api/admin/projects/{projectId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The service that answers (the gateway answers some itself). */
  service: ServiceName | 'gateway';
  security: ApiSecurity;
  /** Path parameters, one string-valued key per `{name}` of the template. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the route reads (besides the security schemes'). */
  headers?: z.ZodObject;
  body?: { schema: z.ZodType; contentType?: string; example?: unknown; description?: string };
  /** Success answers by status. */
  responses: Record<number, ApiResponse>;
  /**
   * The error codes this route answers with, by status (the ones every route of its kind shares,
   * such as the key checks, rate limits and upstream failures, are added by the generator).
   */
  errors?: Partial<Record<number, readonly string[]>>;
}

/** A registry: the routes of one service (or one part of it), in the order they are documented. */
export function defineRoutes(routes: ApiRoute[]): readonly ApiRoute[] {
  return routes;
}
