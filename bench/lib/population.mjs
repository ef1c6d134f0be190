// The bench's clients as a population: every request of every system carries an
// `X-Forwarded-For` address, and each address sends REQUESTS_PER_ADDRESS requests before the next
// one takes over, so our gateway (restarted by ensureStack with TRUST_PROXY=loopback: the bench
// on this machine is the trusted proxy in front of it) sees many clients, each well inside the
// product's default per-IP limits (100 requests, 20 on the auth routes, per 15 minutes), and
// keeps, refuses and counts them in Redis the way it does for real ones. The peers get the same
// header (neither trusts it by default; it changes nothing for them).
//
// Addresses come from 10.0.0.0/8 in order, from a random start: a second run within the limits'
// window (15 minutes) starts elsewhere in the 16.7 million, so it does not meet the first run's
// counts (a run sends about a million requests, ~100,000 addresses).

/** Requests each address sends: half the auth routes' default limit (20 per window). */
export const REQUESTS_PER_ADDRESS = 10;

const SPACE = 2 ** 24;

/** The client addresses of one process: `next()` gives the address of the next request. */
export class ClientPopulation {
  constructor(perAddress = REQUESTS_PER_ADDRESS, start = Math.floor(Math.random() * SPACE)) {
    this.perAddress = perAddress;
    this.start = start;
    this.sent = 0;
  }

  /** The k-th address of this population (k from 0; negative k: addresses it never reaches). */
  address(k) {
    const n = (((this.start + k) % SPACE) + SPACE) % SPACE;
    return `10.${n >>> 16}.${(n >>> 8) & 255}.${n & 255}`;
  }

  next() {
    return this.address(Math.floor(this.sent++ / this.perAddress));
  }

  /** How many addresses have sent requests so far. */
  get addresses() {
    return Math.ceil(this.sent / this.perAddress);
  }
}

/** The one population every request of the bench process comes from. */
export const clients = new ClientPopulation();

/** `headers` plus the next client's address (kept when the caller chose one). */
export function withClientAddress(headers) {
  if (Object.keys(headers).some((h) => h.toLowerCase() === 'x-forwarded-for')) return headers;
  return { ...headers, 'x-forwarded-for': clients.next() };
}
