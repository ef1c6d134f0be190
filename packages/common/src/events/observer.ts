/**
 * What the event bus, the followers and the outbox relays report, so that they can be measured
 * without knowing a metrics library (the prom-client side is `messaging-metrics.ts`).
 */

/**
 * What became of one delivery to a consumer: handled and acknowledged, nak'ed to be retried
 * after its backoff, nak'ed because another delivery holds the event's claim, sent to the
 * dead letters, acknowledged unhandled (a type the consumer does not take), or, for a follower
 * (no acks), not applied.
 */
export type ConsumeOutcome = 'ack' | 'retry' | 'claimed_elsewhere' | 'dead_letter' | 'ignored' | 'error';

/** A durable consumer's position as JetStream reports it (consumer info). */
export interface ConsumerLag {
  /** Messages of the stream the consumer has not been delivered yet. */
  pending: number;
  /** Messages delivered and not yet acknowledged. */
  ackPending: number;
  /** Messages of this consumer in the dead-letter stream. */
  deadLetters: number;
}

export interface EventsObserver {
  published(type: string): void;
  publishFailed(type: string): void;
  /** `seconds` is the handler's run time (undefined when no handler ran). */
  consumed(consumer: string, outcome: ConsumeOutcome, seconds?: number): void;
  redelivered(consumer: string): void;
  /**
   * A durable consumer whose lag is read now and then (never on a request's path); returns a
   * function that stops watching it.
   */
  watchConsumer(consumer: string, lag: () => Promise<ConsumerLag>): () => void;
}

export interface OutboxObserver {
  /** A relay pass (or an immediate relay after a write) failed; it is retried later. */
  relayFailed(): void;
  /** A source of the number of events waiting to be relayed; returns a function that unwatches. */
  watchBacklog(count: () => Promise<number>): () => void;
}
