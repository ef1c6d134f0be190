import type { components } from './schema';

/** The contract's error body, as every answer >= 400 carries it. */
export type ErrorBody = components['schemas']['ErrorBody'];
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/** An API refusal (or no answer at all: status 0), with what the console shows of it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: readonly ErrorDetail[],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** From an answer's status and parsed body (anything: a proxy may answer with HTML). */
  static fromAnswer(response: Response, body: unknown): ApiError {
    const retry = Number(response.headers.get('retry-after'));
    const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (isErrorBody(body))
      return new ApiError(
        response.status,
        body.code,
        body.message,
        body.requestId,
        body.details ?? [],
        retryAfter,
      );
    return new ApiError(
      response.status,
      `HTTP_${response.status}`,
      `The gateway answered ${response.status} ${response.statusText}`.trim(),
      requestId,
      [],
      retryAfter,
    );
  }

  static unreachable(cause: unknown): ApiError {
    const why = cause instanceof Error ? cause.message : String(cause);
    return new ApiError(0, 'NETWORK_ERROR', `The gateway did not answer (${why})`, undefined, []);
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ErrorBody).code === 'string' &&
    typeof (body as ErrorBody).message === 'string'
  );
}

/** Validation details whose path starts with `prefix` (`body.settings.limits`), keyed by the rest. */
export function detailsUnder(error: unknown, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!(error instanceof ApiError)) return out;
  for (const d of error.details) {
    const path = d.path.replace(/^body\.?/, '');
    if (path === prefix || path.startsWith(`${prefix}.`) || prefix === '')
      out.set(prefix === '' ? path : path.slice(prefix.length + 1), d.message);
  }
  return out;
}
