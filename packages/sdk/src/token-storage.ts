/**
 * Where the SDK keeps the session (access token, its expiry and — in header mode — the refresh
 * token). Synchronous or asynchronous: React Native's AsyncStorage fits as it is.
 */
export interface TokenStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** The default: the session lives as long as the client object. */
export function memoryStorage(): TokenStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Browsers: the session in `window.localStorage` (or any Web Storage object, e.g.
 * `sessionStorage`), so it survives reloads and is shared by tabs. In cookie mode only the
 * access token is stored there; the refresh token stays in its HttpOnly cookie. Anything that
 * runs script on the page can read localStorage: keep the memory default when that matters.
 */
export function localStorageAdapter(store?: WebStorage): TokenStorage {
  const target = (): WebStorage => {
    const s = store ?? ((globalThis as Record<string, unknown>).localStorage as WebStorage | undefined);
    if (!s) throw new Error('localStorageAdapter: no localStorage in this environment');
    return s;
  };
  return {
    getItem: (key) => target().getItem(key),
    setItem: (key, value) => target().setItem(key, value),
    removeItem: (key) => target().removeItem(key),
  };
}
