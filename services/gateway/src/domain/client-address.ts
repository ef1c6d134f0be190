import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * Which peers may tell us the client's address through `X-Forwarded-For`: what express's
 * `trust proxy` setting accepts, parsed once at start-up.
 * - `false` (default): nobody; the client is the TCP peer.
 * - `true`: every hop (only behind a proxy that overwrites the header: a client can spoof it).
 * - a hop count (`1`): the n closest hops, e.g. one ingress.
 * - a comma list of addresses, CIDR ranges and the names `loopback`, `linklocal`,
 *   `uniquelocal`: those peers (e.g. `10.0.0.0/8` for a cluster's ingress pods).
 */
export type TrustProxy = (addr: string, hop: number) => boolean;

export class TrustProxyError extends Error {}

export function parseTrustProxy(raw: string): TrustProxy {
  const value = raw.trim();
  if (value === '' || value === 'false') return () => false;
  if (value === 'true') return () => true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_addr, hop) => hop < hops;
  }
  try {
    return proxyAddr.compile(value.split(',').map((s) => s.trim()));
  } catch (e) {
    throw new TrustProxyError(
      `TRUST_PROXY must be false, true, a hop count, or a comma list of addresses, CIDR ranges, ` +
        `loopback, linklocal or uniquelocal (${(e as Error).message})`,
    );
  }
}

/** The client's address: the nearest untrusted hop of X-Forwarded-For, or the TCP peer. */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  return proxyAddr(req, trust) || req.socket.remoteAddress || 'unknown';
}
