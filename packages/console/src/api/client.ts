import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { ApiError } from './errors';
import type { ConsoleSession } from '../auth/session';

/** Every route of the OpenAPI document the gateway serves (`services/gateway/openapi.json`). */
export type ApiPaths = paths;
export type Api = ReturnType<typeof createClient<ApiPaths>>;

/**
 * The typed API client: same origin as the console (the gateway), with the session's
 * credentials. A 401 that says the admin credentials are gone (the token rotated, the session
 * expired) ends the session, and the shell asks to sign in again.
 */
export function createApi(session: ConsoleSession, onSessionRefused: () => void): Api {
  const api = createClient<ApiPaths>({ baseUrl: window.location.origin, credentials: session.credentials });
  const auth: Middleware = {
    onRequest: ({ request }) => session.authorize(request),
    onResponse: async ({ response }) => {
      if (response.status !== 401) return undefined;
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => undefined);
      if ((body as { code?: unknown } | undefined)?.code === 'ADMIN_TOKEN_REQUIRED') onSessionRefused();
      return undefined;
    },
  };
  api.use(auth);
  return api;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The data of a successful answer, or an ApiError (the contract's error body, or no answer).
 * Pages call `await ok(api.GET('/api/admin/projects', ...))`.
 */
export async function ok<T>(pending: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await pending;
  } catch (e) {
    throw ApiError.unreachable(e);
  }
  if (!answer.response.ok) throw ApiError.fromAnswer(answer.response, answer.error);
  return answer.data as T;
}

/** Query parameters the document does not list by name: a collection's field filters. */
export type FieldFilters = Record<string, string>;
