import { AuthClient, type TokenMode } from './auth.js';
import { Collection } from './data.js';
import { isBrowser, globalXhr, type XhrConstructor } from './env.js';
import { BaasError } from './errors.js';
import { StorageClient } from './files.js';
import { HttpClient, type FetchLike, type RetryOptions } from './http.js';
import { MailClient } from './mail.js';
import { memoryStorage, type TokenStorage } from './token-storage.js';

export interface ClientOptions {
  /** The gateway, e.g. `https://api.example.com` (no trailing path). */
  baseUrl: string;
  /** `pk_live_...` in browsers and apps; `sk_live_...` on servers only. */
  apiKey: string;
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Where the session is kept (default: in memory). `localStorageAdapter()` for browsers. */
  storage?: TokenStorage;
  /** Storage key of the session (default `baas.session`). */
  storageKey?: string;
  /** Default: `cookie` in browsers (HttpOnly refresh cookie), `header` elsewhere. */
  tokenMode?: TokenMode;
  /** Retries of idempotent calls (GET, HEAD, PUT, DELETE); `false` for none. */
  retry?: RetryOptions | false;
  /** Refresh ahead when the access token expires within this many seconds (default 30). */
  refreshMarginSeconds?: number;
  /** Base of public file URLs (default `<baseUrl>/files`; the server's `PUBLIC_FILES_BASE_URL`). */
  filesBaseUrl?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** XMLHttpRequest for upload progress (default: the global one when present); `false` to use fetch. */
  xhr?: XhrConstructor | false;
  /**
   * The client refuses a secret key (`sk_live_`) in a browser, where anyone can read it. Set this
   * only for a page that never reaches users (an internal admin tool on a trusted machine).
   */
  dangerouslyAllowSecretKeyInBrowser?: boolean;
}

export interface BaasClient {
  readonly auth: AuthClient;
  readonly storage: StorageClient;
  readonly mail: MailClient;
  /** A typed collection: `client.collection<Todo>('todos')`. */
  collection<T extends object = Record<string, unknown>>(name: string): Collection<T>;
}

const DEFAULT_RETRY: Required<RetryOptions> = {
  retries: 2,
  baseDelayMs: 300,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30000,
};

export function createClient(options: ClientOptions): BaasClient {
  if (!options.baseUrl) throw new TypeError('createClient: baseUrl is required');
  if (!options.apiKey) throw new TypeError('createClient: apiKey is required');
  if (options.apiKey.startsWith('sk_') && isBrowser() && !options.dangerouslyAllowSecretKeyInBrowser)
    throw new BaasError({
      status: 0,
      code: 'SECRET_KEY_IN_BROWSER',
      message:
        'Refusing a secret key (sk_live_) in a browser: anyone can read it there. Use the publishable key, ' +
        'or keep secret-key calls on your server (dangerouslyAllowSecretKeyInBrowser overrides this check).',
    });
  const fetchImpl = options.fetch ?? (globalThis.fetch ? globalThis.fetch.bind(globalThis) : undefined);
  if (!fetchImpl) throw new TypeError('createClient: no fetch in this environment; pass options.fetch');
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const http = new HttpClient({
    baseUrl,
    apiKey: options.apiKey,
    fetch: fetchImpl,
    xhr: options.xhr === false ? undefined : (options.xhr ?? globalXhr()),
    retry:
      options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry },
    headers: { ...options.headers },
  });
  const auth = new AuthClient(http, {
    mode: options.tokenMode ?? (isBrowser() ? 'cookie' : 'header'),
    storage: options.storage ?? memoryStorage(),
    storageKey: options.storageKey ?? 'baas.session',
    refreshMarginSeconds: options.refreshMarginSeconds ?? 30,
  });
  http.session = auth;
  return {
    auth,
    storage: new StorageClient(http, (options.filesBaseUrl ?? `${baseUrl}/files`).replace(/\/+$/, '')),
    mail: new MailClient(http),
    collection: <T extends object = Record<string, unknown>>(name: string) => new Collection<T>(http, name),
  };
}
