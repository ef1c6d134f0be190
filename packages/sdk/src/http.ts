import { BaasError, abortError, errorFromResponse, parseRetryAfter } from './errors.js';
import { type XhrConstructor, sleep } from './env.js';

/** What the SDK passes to `fetch`: always a plain header object and a string or FormData body. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string | FormData;
  credentials?: 'include' | 'omit' | 'same-origin';
  signal?: AbortSignal;
}

/** `globalThis.fetch` fits; so does any function of this shape (tests, proxies, polyfills). */
export type FetchLike = (url: string, init: FetchInit) => Promise<Response>;

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RetryOptions {
  /** Further attempts after the first (default 2). */
  retries?: number;
  /** First backoff step in ms (default 300); doubled each attempt, with full jitter. */
  baseDelayMs?: number;
  /** Longest backoff step in ms (default 5000). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this (default 30000 ms) is not waited for: the error is thrown. */
  maxRetryAfterMs?: number;
}

export interface UploadProgress {
  /** Bytes sent so far. */
  loaded: number;
  /** Total bytes when known. */
  total: number | undefined;
}

/** Per-call options every method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Extra headers for this call (e.g. your own `x-request-id`). */
  headers?: Record<string, string>;
}

export interface HttpRequest extends CallOptions {
  method: HttpMethod;
  path: string;
  query?: Array<[string, string]>;
  json?: unknown;
  form?: FormData;
  /** Send the session's Bearer token (and refresh it when the server says it is no longer valid). */
  bearer?: boolean;
  /** Include cookies (cookie mode, refresh-cookie routes only). */
  credentials?: boolean;
  onUploadProgress?: (p: UploadProgress) => void;
  uploadSize?: number;
}

/** How the transport reaches the session (implemented by the auth module). */
export interface SessionHooks {
  /** A usable access token (refreshed first when it is known to be expired), or undefined. */
  accessToken(signal?: AbortSignal): Promise<string | undefined>;
  /** The server refused `usedToken`: make a new one (single-flight). False when that is impossible. */
  recover(usedToken: string, signal?: AbortSignal): Promise<boolean>;
}

/** The 401 codes after which a refresh and one retry are worth it (expired or ended access token). */
export const REFRESHABLE_CODES: ReadonlySet<string> = new Set(['TOKEN_EXPIRED', 'INVALID_TOKEN']);
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);
const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['GET', 'HEAD', 'PUT', 'DELETE']);

export interface HttpConfig {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  xhr: XhrConstructor | undefined;
  retry: Required<RetryOptions>;
  headers: Record<string, string>;
  random?: () => number;
}

export class HttpClient {
  session: SessionHooks | undefined;

  constructor(readonly config: HttpConfig) {}

  url(path: string, query?: Array<[string, string]>): string {
    const qs = (query ?? []).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    return `${this.config.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Sends, retries (idempotent methods only), refreshes once on an expired token, parses JSON. */
  async request<T>(req: HttpRequest): Promise<T> {
    const res = await this.exchange(req);
    return (await parseBody(res)) as T;
  }

  /** Like `request` but answers the Response (ok statuses only). */
  async exchange(req: HttpRequest): Promise<Response> {
    let recovered = false;
    for (;;) {
      const token = req.bearer && this.session ? await this.session.accessToken(req.signal) : undefined;
      const res = await this.withRetries(req, token);
      if (res.ok) return res;
      const error = await errorFromResponse(res);
      if (
        res.status === 401 &&
        token !== undefined &&
        !recovered &&
        REFRESHABLE_CODES.has(error.code) &&
        this.session &&
        (await this.session.recover(token, req.signal))
      ) {
        recovered = true;
        continue;
      }
      throw error;
    }
  }

  private async withRetries(req: HttpRequest, token: string | undefined): Promise<Response> {
    const { retry } = this.config;
    const idempotent = IDEMPOTENT.has(req.method);
    const onAbort = () => abortError(req.signal);
    for (let attempt = 0; ; attempt++) {
      if (req.signal?.aborted) throw onAbort();
      const canRetry = idempotent && attempt < retry.retries;
      let res: Response;
      try {
        res = await this.send(req, token);
      } catch (e) {
        if (req.signal?.aborted) throw onAbort();
        if (e instanceof BaasError) throw e;
        const error = new BaasError({
          status: 0,
          code: 'NETWORK_ERROR',
          message: e instanceof Error ? e.message : String(e),
          cause: e,
        });
        if (!canRetry) throw error;
        await sleep(this.backoff(attempt), req.signal, onAbort);
        continue;
      }
      if (!canRetry || !RETRY_STATUSES.has(res.status)) return res;
      const after =
        res.status === 429 || res.status === 503
          ? parseRetryAfter(res.headers.get('retry-after'))
          : undefined;
      if (after !== undefined && after > retry.maxRetryAfterMs) return res;
      await res.body?.cancel().catch(() => undefined);
      await sleep(after ?? this.backoff(attempt), req.signal, onAbort);
    }
  }

  /** Exponential backoff with full jitter: random in [0, min(max, base * 2^attempt)]. */
  backoff(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.config.retry;
    const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    return Math.round((this.config.random ?? Math.random)() * cap);
  }

  private send(req: HttpRequest, token: string | undefined): Promise<Response> {
    const headers: Record<string, string> = { ...this.config.headers, 'x-api-key': this.config.apiKey };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | FormData | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form) body = req.form; // the platform writes the multipart boundary
    Object.assign(headers, req.headers);
    const init: FetchInit = { method: req.method, headers };
    if (body !== undefined) init.body = body;
    if (req.credentials) init.credentials = 'include';
    if (req.signal) init.signal = req.signal;
    const url = this.url(req.path, req.query);
    if (req.onUploadProgress && this.config.xhr)
      return xhrSend(this.config.xhr, url, init, req.onUploadProgress);
    if (!req.onUploadProgress) return this.config.fetch(url, init);
    // fetch cannot report upload progress: the start and the end only.
    const progress = req.onUploadProgress;
    progress({ loaded: 0, total: req.uploadSize });
    return this.config.fetch(url, init).then((res) => {
      if (req.uploadSize !== undefined) progress({ loaded: req.uploadSize, total: req.uploadSize });
      return res;
    });
  }
}

async function parseBody(res: Response): Promise<unknown> {
  if (res.status === 204 || res.status === 205) return undefined;
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new BaasError({
      status: res.status,
      code: 'INVALID_RESPONSE',
      message: `Expected JSON, got: ${text.slice(0, 100)}`,
      requestId: res.headers.get('x-request-id') ?? undefined,
    });
  }
}

function parseRawHeaders(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of raw.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

/** One request over XMLHttpRequest (browsers, React Native) for real upload progress events. */
export function xhrSend(
  Xhr: XhrConstructor,
  url: string,
  init: FetchInit,
  onProgress: (p: UploadProgress) => void,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const xhr = new Xhr();
    const { signal } = init;
    const onAbort = (): void => xhr.abort();
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    xhr.open(init.method, url, true);
    for (const [k, v] of Object.entries(init.headers)) xhr.setRequestHeader(k, v);
    xhr.withCredentials = init.credentials === 'include';
    xhr.upload.onprogress = (e) =>
      onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : undefined });
    xhr.onload = () => {
      done();
      const status = xhr.status;
      const body = status === 204 || status === 205 ? null : xhr.responseText;
      resolve(new Response(body, { status, headers: parseRawHeaders(xhr.getAllResponseHeaders()) }));
    };
    xhr.onerror = () => {
      done();
      reject(new TypeError('Network request failed'));
    };
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => {
      done();
      reject(abortError(signal));
    };
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    xhr.send(init.body ?? null);
  });
}
