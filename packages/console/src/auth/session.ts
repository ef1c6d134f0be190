/**
 * Who the console acts as. Today: the platform admin token, typed in at sign-in and kept in this
 * tab's memory only (never localStorage, sessionStorage or a cookie: a reload asks again), sent
 * as `Authorization: Bearer`. Console accounts will replace it with a cookie session (HttpOnly,
 * SameSite=Strict): such a session adds no header but a CSRF token on state-changing requests,
 * sends cookies (`credentials: 'same-origin'`) and is ended on the server. The pages only ever
 * see this interface, through the API client.
 */
export interface ConsoleSession {
  /** What the shell says about who is signed in. */
  readonly label: string;
  /** How requests carry cookies: none for a token, the session cookie later. */
  readonly credentials: RequestCredentials;
  /** The request with the session's credentials added. */
  authorize(request: Request): Request;
  /** Forgets the credentials (a cookie session also ends itself on the server). */
  end(): Promise<void>;
}

/** The platform admin token, held by this closure and nowhere else. */
export function adminTokenSession(token: string): ConsoleSession {
  let held: string | undefined = token;
  return {
    label: 'Platform admin (token)',
    credentials: 'omit',
    authorize(request) {
      if (held === undefined) return request;
      request.headers.set('Authorization', `Bearer ${held}`);
      return request;
    },
    end() {
      held = undefined;
      return Promise.resolve();
    },
  };
}
