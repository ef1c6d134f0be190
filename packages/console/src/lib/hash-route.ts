/** A page named in the address's fragment: `#/reset-password?token=…`. */
export interface HashRoute {
  /** `accept-invitation`, `reset-password`; '' without one. */
  name: string;
  query: URLSearchParams;
}

export function parseHashRoute(hash: string): HashRoute {
  const m = /^#\/([a-z][a-z-]*)(?:\?(.*))?$/.exec(hash);
  return { name: m?.[1] ?? '', query: new URLSearchParams(m?.[2] ?? '') };
}
