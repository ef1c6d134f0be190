import type { FetchInit, FetchLike } from '../src/index.js';

/** A recorded call of the fake fetch. */
export interface FakeCall {
  url: string;
  path: string;
  init: FetchInit;
}

export type Handler = (call: FakeCall, n: number) => Response | Promise<Response>;

/** A fetch that answers from `handler` and records every call. */
export function fakeFetch(handler: Handler): FetchLike & { calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  const f = async (url: string, init: FetchInit): Promise<Response> => {
    const call = { url, path: new URL(url).pathname, init };
    calls.push(call);
    if (init.signal?.aborted) throw init.signal.reason;
    return handler(call, calls.length);
  };
  return Object.assign(f, { calls });
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'req-test', ...headers },
  });
}

export function apiError(status: number, code: string, headers: Record<string, string> = {}): Response {
  return json(
    status,
    { success: false, error: code, message: `${code} message`, code, requestId: `rid-${code}` },
    headers,
  );
}

/** A JWT-shaped token whose payload carries `exp` (signature not checked by the client). */
export function jwt(exp: number, extra: Record<string, unknown> = {}): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'EdDSA', typ: 'at+jwt' })}.${b64({ exp, ...extra })}.sig`;
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
