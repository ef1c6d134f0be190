// The bench's clients as a population: every request of every system carries an
// `X-Forwarded-For` address. CLIENTS_AT_ONCE addresses are active at a time and take turns, one
// request each, so an address's requests are that many requests apart (about half a second at
// 2,000 req/s, as a client clicking through an app), never a burst on many connections at once;
// after REQUESTS_PER_ADDRESS turns the next CLIENTS_AT_ONCE addresses take over. Our gateway
// (restarted by ensureStack with TRUST_PROXY=1: the bench is the one proxy in front of it) thus
// sees many clients, each well inside the product's default per-IP limits (100 requests, 20 on
// the auth routes, per 15 minutes), and counts and refuses them in Redis the way it does real
// ones: a client's first request, and every few after it, waits for a Redis round trip. The peers
// get the same header (neither trusts it by default; it changes nothing for them).
//
// Addresses come from 10.0.0.0/8 in order, from a random start: a second run within the limits'
// window (15 minutes) starts elsewhere in the 16.7 million, so it does not meet the first run's
// counts (a full run uses about 200,000 addresses).

/** Requests each address sends: half the auth routes' default limit (20 per window). */
export const REQUESTS_PER_ADDRESS = 10;

/** Clients sending at the same time, in turns. */
export const CLIENTS_AT_ONCE = 1000;

const SPACE = 2 ** 24;

/** The client addresses of one process: `next()` gives the address of the next request. */
export class ClientPopulation {
  constructor(
    perAddress = REQUESTS_PER_ADDRESS,
    start = Math.floor(Math.random() * SPACE),
    atOnce = CLIENTS_AT_ONCE,
  ) {
    this.perAddress = perAddress;
    this.start = start;
    this.atOnce = atOnce;
    this.sent = 0;
  }

  /** The k-th address of this population (k from 0; negative k: addresses it never reaches). */
  address(k) {
    const n = (((this.start + k) % SPACE) + SPACE) % SPACE;
    return `10.${n >>> 16}.${(n >>> 8) & 255}.${n & 255}`;
  }

  /** The address of the next request: the clients at once in turn, `perAddress` turns each. */
  next() {
    const n = this.sent++;
    const group = Math.floor(n / (this.atOnce * this.perAddress));
    return this.address(group * this.atOnce + (n % this.atOnce));
  }

  /** How many addresses have sent requests so far. */
  get addresses() {
    const full = Math.floor(this.sent / (this.atOnce * this.perAddress));
    const rest = this.sent - full * this.atOnce * this.perAddress;
    return full * this.atOnce + Math.min(this.atOnce, rest);
  }
}

/** The one population every request of the bench process comes from. */
export const clients = new ClientPopulation();

/** `headers` plus the next client's address (kept when the caller chose one). */
export function withClientAddress(headers) {
  if (Object.keys(headers).some((h) => h.toLowerCase() === 'x-forwarded-for')) return headers;
  return { ...headers, 'x-forwarded-for': clients.next() };
}
