/** One validation failure of a request body (the contract's `details` entries). */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface BaasErrorInit {
  status: number;
  code: string;
  message: string;
  requestId?: string | undefined;
  details?: ErrorDetail[] | undefined;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * Every failure of a call, typed. `status` is the HTTP status (0 when no answer arrived: network
 * failure, or a refusal made by the client itself), `code` the contract's stable code
 * (`INVALID_TOKEN`, `DUPLICATE_VALUE`, ...; `NETWORK_ERROR` or `HTTP_<status>` when the answer
 * carried none), `requestId` the server's request id (body `requestId`, else `x-request-id`).
 */
export class BaasError extends Error {
  override readonly name = 'BaasError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  /** From `Retry-After` on 429/503 answers, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(init: BaasErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export function isBaasError(e: unknown): e is BaasError {
  return e instanceof BaasError;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  error?: unknown;
  requestId?: unknown;
  details?: unknown;
}

/** The contract's error body (or whatever came instead) as a BaasError. Consumes the body. */
export async function errorFromResponse(res: Response): Promise<BaasError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    /* a body that cannot be read: keep the status */
  }
  let body: ErrorBody = {};
  try {
    const parsed: ErrorBody | null = text ? (JSON.parse(text) as ErrorBody | null) : null;
    if (parsed && typeof parsed === 'object') body = parsed;
  } catch {
    /* not JSON */
  }
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  return new BaasError({
    status: res.status,
    code: str(body.code) ?? `HTTP_${res.status}`,
    message: str(body.message) ?? str(body.error) ?? (text.slice(0, 200) || `HTTP ${res.status}`),
    requestId: str(body.requestId) ?? res.headers.get('x-request-id') ?? undefined,
    details: Array.isArray(body.details) ? body.details : undefined,
    retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
  });
}

/**
 * The error an aborted call rejects with: the signal's reason when it is an Error (by default a
 * DOMException named `AbortError`), else an Error named `AbortError` carrying it as `cause`.
 */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const e = new Error('The operation was aborted', reason === undefined ? undefined : { cause: reason });
  e.name = 'AbortError';
  return e;
}
