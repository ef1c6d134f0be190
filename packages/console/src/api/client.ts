import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { ApiError } from './errors';
import type { ConsoleSession } from '../auth/session';

/** Every route of the OpenAPI document the gateway serves (`services/gateway/openapi.json`). */
export type ApiPaths = paths;
export type Api = ReturnType<typeof createClient<ApiPaths>>;

/** Answers that mean the session's credentials are no longer accepted. */
const GONE = new Set(['ADMIN_TOKEN_REQUIRED', 'CONSOLE_SESSION_REQUIRED', 'CSRF_TOKEN_INVALID']);

/**
 * The typed API client: same origin as the console (the gateway), with the session's
 * credentials added by a middleware (the token, or the CSRF token of an account session on every
 * state-changing call). An answer that says the credentials are gone (the token changed, the
 * session expired, was revoked or replaced by another sign-in in this browser) ends the session,
 * and the shell asks to sign in again.
 */
export function createApi(session: ConsoleSession, onSessionRefused: () => void): Api {
  const api = createClient<ApiPaths>({ baseUrl: window.location.origin, credentials: session.credentials });
  const auth: Middleware = {
    onRequest: ({ request }) => session.authorize(request),
    onResponse: async ({ response }) => {
      if (response.status !== 401 && response.status !== 403) return undefined;
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => undefined);
      const code = (body as { code?: unknown } | undefined)?.code;
      if (typeof code === 'string' && GONE.has(code)) onSessionRefused();
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
