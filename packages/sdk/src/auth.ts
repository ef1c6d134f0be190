import { BaasError, abortError } from './errors.js';
import { jwtExpiry, raceAbort } from './env.js';
import type { CallOptions, HttpClient, SessionHooks } from './http.js';
import type { TokenStorage } from './token-storage.js';

/** `cookie`: the refresh token lives in an HttpOnly cookie (browsers); `header`: the SDK keeps it. */
export type TokenMode = 'cookie' | 'header';

/** The user object of the auth API: never the password. Profile fields as the project's schema. */
export interface BaasUser {
  _id: string;
  email: string;
  emailVerified: boolean;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** A public profile: neither `email` nor `emailVerified`. */
export type PublicProfile = Omit<BaasUser, 'email' | 'emailVerified'>;

export interface Session {
  accessToken: string;
  /** Milliseconds since 1970; from `expiresIn` (or the token's `exp` claim). */
  expiresAt?: number | undefined;
  /** Header mode only: in cookie mode the browser keeps it in an HttpOnly cookie. */
  refreshToken?: string | undefined;
}

export type AuthEvent = 'SIGNED_IN' | 'TOKEN_REFRESHED' | 'SIGNED_OUT';
export type AuthListener = (event: AuthEvent, session: Session | null) => void;

export interface SignupInput {
  email: string;
  password: string;
  /** Further profile fields of the project's users schema. */
  [field: string]: unknown;
}

export interface AuthResult<U = BaasUser> {
  user: U;
  /** null when the project requires email verification first (`emailVerificationRequired`). */
  session: Session | null;
  emailVerificationRequired: boolean;
}

export type VerifyEmailInput = { token: string } | { email: string; otp: string };
export type ResetPasswordInput =
  { token: string; newPassword: string } | { email: string; otp: string; newPassword: string };

interface TokenBody {
  accessToken: string;
  expiresIn?: number;
  refreshToken?: string;
  user?: BaasUser;
  emailVerificationRequired?: boolean;
}

const AUTH = '/api/userAuth';

export interface AuthConfig {
  mode: TokenMode;
  storage: TokenStorage;
  storageKey: string;
  /** Refresh ahead when the access token expires within this many seconds. */
  refreshMarginSeconds: number;
  now?: () => number;
}

/**
 * End-user accounts and the session. The access token is refreshed automatically: before a call
 * when it is known to be expired, and after a call answered 401 `INVALID_TOKEN`/`TOKEN_EXPIRED`
 * (then the call is sent once more). Refreshes are single-flight: however many calls need one at
 * the same moment, one `refresh-token` request is made and they all wait for it.
 */
export class AuthClient implements SessionHooks {
  private session: Session | null = null;
  private loaded: Promise<void> | undefined;
  private inflight: Promise<Session> | null = null;
  private readonly listeners = new Set<AuthListener>();

  constructor(
    private readonly http: HttpClient,
    private readonly config: AuthConfig,
  ) {}

  get mode(): TokenMode {
    return this.config.mode;
  }

  // ---- the API ----

  async signup<U = BaasUser>(input: SignupInput, opts: CallOptions = {}): Promise<AuthResult<U>> {
    const body = await this.http.request<TokenBody>({
      method: 'POST',
      path: `${AUTH}/signup`,
      json: input,
      ...this.refreshTransport(opts),
    });
    if (!body.accessToken)
      return {
        user: body.user as U,
        session: null,
        emailVerificationRequired: !!body.emailVerificationRequired,
      };
    const session = await this.adopt(body, 'SIGNED_IN');
    return { user: body.user as U, session, emailVerificationRequired: false };
  }

  async login<U = BaasUser>(
    input: { email: string; password: string },
    opts: CallOptions = {},
  ): Promise<AuthResult<U>> {
    const body = await this.http.request<TokenBody>({
      method: 'POST',
      path: `${AUTH}/login`,
      json: { email: input.email, password: input.password },
      ...this.refreshTransport(opts),
    });
    const session = await this.adopt(body, 'SIGNED_IN');
    return { user: body.user as U, session, emailVerificationRequired: false };
  }

  /**
   * Ends the login on the server (its whole refresh family) and forgets the session locally. The
   * local session is forgotten even when the server cannot be reached; a 401 (already ended) is
   * not an error.
   */
  async logout(opts: CallOptions = {}): Promise<void> {
    await this.load();
    const refreshToken = this.session?.refreshToken;
    const hadSession = this.session !== null;
    await this.setSession(null);
    if (hadSession) this.emit('SIGNED_OUT');
    if (this.config.mode === 'header' && !refreshToken) return;
    try {
      await this.http.request({
        method: 'POST',
        path: `${AUTH}/logout`,
        ...this.refreshTransport(opts, refreshToken),
      });
    } catch (e) {
      if (!(e instanceof BaasError && e.status === 401)) throw e;
    }
  }

  async me<U = BaasUser>(opts: CallOptions = {}): Promise<U> {
    const body = await this.http.request<{ user: U }>({
      method: 'GET',
      path: `${AUTH}/me`,
      bearer: true,
      ...opts,
    });
    return body.user;
  }

  async updateProfile<U = BaasUser>(fields: Record<string, unknown>, opts: CallOptions = {}): Promise<U> {
    const body = await this.http.request<{ user: U }>({
      method: 'PUT',
      path: `${AUTH}/update-profile`,
      json: fields,
      bearer: true,
      ...opts,
    });
    return body.user;
  }

  async changePassword(
    input: { currentPassword: string; newPassword: string },
    opts: CallOptions = {},
  ): Promise<void> {
    await this.http.request({
      method: 'PUT',
      path: `${AUTH}/change-password`,
      json: input,
      bearer: true,
      ...opts,
    });
  }

  async publicProfile<U = PublicProfile>(username: string, opts: CallOptions = {}): Promise<U> {
    const body = await this.http.request<{ user: U }>({
      method: 'GET',
      path: `${AUTH}/public/${encodeURIComponent(username)}`,
      ...opts,
    });
    return body.user;
  }

  /** With the link token (`{ token }`) or the 8-digit code (`{ email, otp }`) of the mail. */
  async verifyEmail(input: VerifyEmailInput, opts: CallOptions = {}): Promise<void> {
    await this.http.request({ method: 'POST', path: `${AUTH}/verify-email`, json: input, ...opts });
  }

  /** Always succeeds (whether or not the address has an account). */
  async requestPasswordReset(email: string, opts: CallOptions = {}): Promise<void> {
    await this.http.request({
      method: 'POST',
      path: `${AUTH}/request-password-reset`,
      json: { email },
      ...opts,
    });
  }

  /** Ends every session of the user; log in again afterwards. */
  async resetPassword(input: ResetPasswordInput, opts: CallOptions = {}): Promise<void> {
    await this.http.request({ method: 'POST', path: `${AUTH}/reset-password`, json: input, ...opts });
  }

  /**
   * A new access token now (single-flight: concurrent callers share one request). In cookie mode
   * this also restores a session after a page reload from the refresh cookie. A 401 answer (an
   * expired, revoked or replayed refresh token) ends the local session and is thrown.
   */
  async refresh(opts: { signal?: AbortSignal } = {}): Promise<Session> {
    if (!this.inflight) {
      this.inflight = this.doRefresh().finally(() => {
        this.inflight = null;
      });
    }
    return raceAbort(this.inflight, opts.signal, () => abortError(opts.signal));
  }

  async getSession(): Promise<Session | null> {
    await this.load();
    return this.session;
  }

  /** Adopt a session obtained elsewhere (server-side rendering, tests), or null to forget it. */
  async setSession(session: Session | null): Promise<void> {
    await this.load();
    if (session && session.expiresAt === undefined)
      session = { ...session, expiresAt: jwtExpiry(session.accessToken) };
    this.session = session;
    if (session) await this.config.storage.setItem(this.config.storageKey, JSON.stringify(session));
    else await this.config.storage.removeItem(this.config.storageKey);
  }

  /** Called on sign-in, refresh and sign-out (also when a refresh fails for good). Returns an unsubscribe. */
  onAuthStateChange(listener: AuthListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- SessionHooks (used by every call that carries the Bearer token) ----

  async accessToken(signal?: AbortSignal): Promise<string | undefined> {
    await this.load();
    const s = this.session;
    if (!s) return undefined;
    const now = (this.config.now ?? Date.now)();
    if (
      s.expiresAt !== undefined &&
      s.expiresAt - this.config.refreshMarginSeconds * 1000 <= now &&
      this.canRefresh()
    )
      return (await this.refresh(signal ? { signal } : {})).accessToken;
    return s.accessToken;
  }

  async recover(usedToken: string, signal?: AbortSignal): Promise<boolean> {
    await this.load();
    const current = this.session?.accessToken;
    // Another call refreshed while this one was out: just retry with the new token.
    if (current && current !== usedToken) return true;
    if (!this.session || !this.canRefresh()) return false;
    await this.refresh(signal ? { signal } : {});
    return true;
  }

  // ---- internals ----

  private canRefresh(): boolean {
    return this.config.mode === 'cookie' || !!this.session?.refreshToken;
  }

  /** Cookie mode: include the cookie. Header mode: ask for the token in the body (and send ours). */
  private refreshTransport(opts: CallOptions, refreshToken?: string) {
    if (this.config.mode === 'cookie') return { ...opts, credentials: true };
    const headers: Record<string, string> = { 'x-refresh-token-mode': 'header', ...opts.headers };
    if (refreshToken) headers['x-refresh-token'] = refreshToken;
    return { ...opts, headers };
  }

  private async doRefresh(): Promise<Session> {
    await this.load();
    const refreshToken = this.session?.refreshToken;
    if (this.config.mode === 'header' && !refreshToken)
      throw new BaasError({
        status: 401,
        code: 'REFRESH_TOKEN_REQUIRED',
        message: 'No refresh token in this client',
      });
    try {
      const body = await this.http.request<TokenBody>({
        method: 'POST',
        path: `${AUTH}/refresh-token`,
        ...this.refreshTransport({}, refreshToken),
      });
      return await this.adopt(body, 'TOKEN_REFRESHED');
    } catch (e) {
      // The login is over (expired, revoked, replayed): forget it. Other failures may pass.
      if (e instanceof BaasError && e.status === 401 && this.session?.refreshToken === refreshToken) {
        await this.setSession(null);
        this.emit('SIGNED_OUT');
      }
      throw e;
    }
  }

  private async adopt(body: TokenBody, event: AuthEvent): Promise<Session> {
    const now = (this.config.now ?? Date.now)();
    const session: Session = {
      accessToken: body.accessToken,
      expiresAt:
        typeof body.expiresIn === 'number' ? now + body.expiresIn * 1000 : jwtExpiry(body.accessToken),
    };
    if (this.config.mode === 'header') session.refreshToken = body.refreshToken;
    await this.setSession(session);
    this.emit(event);
    return session;
  }

  private emit(event: AuthEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(event, this.session);
      } catch {
        /* a listener's failure is not the call's */
      }
    }
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const raw = await this.config.storage.getItem(this.config.storageKey);
      if (!raw) return;
      try {
        const s = JSON.parse(raw) as Session;
        if (typeof s.accessToken === 'string') this.session = s;
      } catch {
        /* unreadable: no session */
      }
    })();
    return this.loaded;
  }
}
