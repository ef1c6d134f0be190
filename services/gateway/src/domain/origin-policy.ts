/**
 * Origin allowlist: an empty list means no origin check. Otherwise the Origin header must equal
 * one entry exactly (scheme, host and port), as browsers serialise it. A request without an
 * Origin header is not a browser cross-origin request and is not refused here: keys and RLS
 * remain the security boundary, the allowlist is a browser control.
 */
export function originAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  if (allowed.length === 0 || origin === undefined) return true;
  return allowed.includes(origin);
}
