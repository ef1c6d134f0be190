/**
 * Runtime detection without DOM or Node typings, so that the same code builds for browsers,
 * Node and React Native (React Native defines `window` but no `document`: not a browser here).
 */
const g = globalThis as Record<string, unknown>;

export function isBrowser(): boolean {
  return typeof g.window !== 'undefined' && typeof g.document !== 'undefined';
}

/** The minimal slice of XMLHttpRequest the SDK uses for upload progress. */
export interface XhrLike {
  open(method: string, url: string, async?: boolean): void;
  setRequestHeader(name: string, value: string): void;
  getAllResponseHeaders(): string;
  send(body?: unknown): void;
  abort(): void;
  readonly status: number;
  readonly responseText: string;
  withCredentials: boolean;
  onload: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onabort: ((ev: unknown) => void) | null;
  ontimeout: ((ev: unknown) => void) | null;
  readonly upload: {
    onprogress: ((ev: { loaded: number; total: number; lengthComputable: boolean }) => void) | null;
  };
}

export type XhrConstructor = new () => XhrLike;

export function globalXhr(): XhrConstructor | undefined {
  const X = g.XMLHttpRequest;
  return typeof X === 'function' ? (X as XhrConstructor) : undefined;
}

/** base64url → string (JWT payloads are ASCII JSON), without atob or Buffer. */
export function decodeBase64Url(input: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const ch of input.replace(/=+$/, '')) {
    const idx = alphabet.indexOf(ch === '+' ? '-' : ch === '/' ? '_' : ch);
    if (idx < 0) throw new Error('not base64url');
    value = (value << 6) | idx;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  // Decode UTF-8 by hand (TextDecoder is missing in some React Native engines).
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i++] as number;
    let cp = b;
    if (b >= 0xf0)
      cp =
        ((b & 0x07) << 18) |
        ((bytes[i++]! & 0x3f) << 12) |
        ((bytes[i++]! & 0x3f) << 6) |
        (bytes[i++]! & 0x3f);
    else if (b >= 0xe0) cp = ((b & 0x0f) << 12) | ((bytes[i++]! & 0x3f) << 6) | (bytes[i++]! & 0x3f);
    else if (b >= 0xc0) cp = ((b & 0x1f) << 6) | (bytes[i++]! & 0x3f);
    out += String.fromCodePoint(cp);
  }
  return out;
}

/** The `exp` claim of a JWT in milliseconds since 1970, when it can be read. */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(decodeBase64Url(payload)) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves after `ms`, or rejects at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(onAbort());
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    function abort(): void {
      clearTimeout(timer);
      reject(onAbort());
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (the work itself goes on: it is shared). */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => Error,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
