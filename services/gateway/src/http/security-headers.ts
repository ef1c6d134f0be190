import type { ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * helmet's response headers for every answer of the gateway. helmet's policy is the same for
 * every request, so it runs once at start-up against a recording response and each request
 * copies the recorded list (a plain loop instead of helmet's middleware chain per request).
 */
export function securityHeaders(): Array<[string, string]> {
  const recorded: Array<[string, string]> = [];
  const fake = {
    setHeader: (name: string, value: string | number | readonly string[]) =>
      recorded.push([name, String(value)]),
    removeHeader: (name: string) => {
      const i = recorded.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
      if (i >= 0) recorded.splice(i, 1);
    },
    getHeader: () => undefined,
  };
  helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } })(
    {} as never,
    fake as never,
    () => undefined,
  );
  return recorded;
}

export function applyHeaders(res: ServerResponse, headers: ReadonlyArray<[string, string]>): void {
  for (const [name, value] of headers) res.setHeader(name, value);
}
