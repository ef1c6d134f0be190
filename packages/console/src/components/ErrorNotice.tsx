import { ApiError } from '../api/errors';

/** What went wrong, in words. */
export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'Something went wrong.';
}

/** An API refusal as an alert: the message, its code and request id, the validation details. */
export function ErrorNotice({ error, id }: { error: unknown; id?: string }) {
  if (error === undefined || error === null) return null;
  const e = error instanceof ApiError ? error : undefined;
  const message = describe(error);
  return (
    <div className="notice notice-error" role="alert" id={id}>
      <p>
        <strong>{message}</strong>
        {e && e.status > 0 && (
          <span className="muted">
            {' '}
            ({e.status} {e.code}
            {e.requestId ? `, request ${e.requestId}` : ''})
          </span>
        )}
      </p>
      {e?.status === 429 && e.retryAfterSeconds !== undefined && (
        <p>Rate limited: try again in {e.retryAfterSeconds} s.</p>
      )}
      {e && e.details.length > 0 && (
        <ul className="details">
          {e.details.map((d, i) => (
            <li key={i}>
              <code>{d.path}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
