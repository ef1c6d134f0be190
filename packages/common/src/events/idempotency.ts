/**
 * Consumers are idempotent: before acting on an event they claim it in their own database, and
 * they mark it done only after the effect. Delivery is at least once, so:
 * - a claim marked done means the effect happened: a redelivery is acknowledged without a rerun;
 * - a claim still in progress belongs to a handler that is running, or to a process that died
 *   between claim and effect. It holds for a lease (a bit longer than the consumer's ack wait);
 *   a redelivery that finds a younger claim is retried after what remains of the lease, and one
 *   that finds an older claim takes it over and runs the handler again;
 * - a handler that throws releases its claim, so the redelivery runs it again at once.
 * Claims carry a token, so a handler that was overtaken cannot release its successor's claim.
 */
export interface ProcessedEvents {
  claim(consumer: string, eventId: string, leaseMs: number): Promise<ClaimResult>;
  /** The effect happened: the event is never handled again by this consumer (whoever holds the claim now). */
  complete(consumer: string, eventId: string): Promise<void>;
  /** The handler failed: drops the claim if it is still ours. */
  release(consumer: string, eventId: string, token: string): Promise<void>;
  /**
   * Retention: deletes records claimed before `olderThan` (done, or abandoned long ago), at most
   * `limit`; returns how many went.
   */
  prune(olderThan: Date, limit: number): Promise<number>;
}

export type ClaimResult =
  { status: 'claimed'; token: string } | { status: 'done' } | { status: 'busy'; retryInMs: number };

/** Lease of a claim when the consumer's ack wait is not known: longer than any ack wait we use. */
export const DEFAULT_CLAIM_LEASE_MS = 90_000;

/** A claim's lease for a consumer with this ack wait: the redelivery after a crash comes at the ack wait, the takeover a little later. */
export function claimLeaseFor(ackWaitMs: number): number {
  return Math.ceil(ackWaitMs * 1.5);
}

/** Thrown when another delivery of the same event holds a live claim: retry after `retryInMs`. */
export class ClaimBusyError extends Error {
  constructor(readonly retryInMs: number) {
    super(`event is being handled elsewhere; retry in ${retryInMs} ms`);
    this.name = 'ClaimBusyError';
  }
}

/** What the bus tells a handler about the delivery (optional: handlers may be called directly). */
export interface DeliveryInfo {
  attempt: number;
  ackWaitMs: number;
}

export interface IdempotentOptions {
  /** Overrides the lease derived from the delivery's ack wait. */
  leaseMs?: number;
}

export function idempotent<E extends { id: string }>(
  store: ProcessedEvents,
  consumer: string,
  handler: (event: E) => Promise<void>,
  opts: IdempotentOptions = {},
) {
  return async (event: E, delivery?: DeliveryInfo): Promise<void> => {
    const leaseMs = opts.leaseMs ?? (delivery ? claimLeaseFor(delivery.ackWaitMs) : DEFAULT_CLAIM_LEASE_MS);
    const claim = await store.claim(consumer, event.id, leaseMs);
    if (claim.status === 'done') return;
    if (claim.status === 'busy') throw new ClaimBusyError(claim.retryInMs);
    try {
      await handler(event);
    } catch (e) {
      await store.release(consumer, event.id, claim.token);
      throw e;
    }
    await store.complete(consumer, event.id);
  };
}
