import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from './metrics';
import { Sampler } from './sampler';
import type { ConsumeOutcome, ConsumerLag, EventsObserver, OutboxObserver } from './events/observer';

export interface SampleOptions {
  /** Values read from JetStream or the database are at most this old (15 s). */
  maxAgeMs?: number;
  /** A scrape waits at most this long for a read in progress (1 s). */
  timeoutMs?: number;
}

const OUTCOMES: readonly ConsumeOutcome[] = [
  'ack',
  'retry',
  'claimed_elsewhere',
  'dead_letter',
  'ignored',
  'error',
];

function sampler<T>(read: () => Promise<T>, opts: SampleOptions): Sampler<T> {
  return new Sampler(read, { maxAgeMs: opts.maxAgeMs ?? 15_000, timeoutMs: opts.timeoutMs ?? 1000 });
}

/**
 * The event bus's metrics: events published and failed by type, deliveries by consumer and
 * outcome, redeliveries, handler time, and each durable consumer's lag and dead letters, read
 * from JetStream when scraped (at most every 15 s). Labels are bounded: event types come from
 * the catalogue, consumers are the services' durable names.
 */
export function eventMetrics(metrics: Metrics, opts: SampleOptions = {}): EventsObserver {
  const registers = [metrics.registry];
  const published = new client.Counter({
    name: `${METRIC_PREFIX}events_published_total`,
    help: 'Events published to JetStream (acknowledged by the stream), by type',
    labelNames: ['type'] as const,
    registers,
  });
  const publishFailures = new client.Counter({
    name: `${METRIC_PREFIX}events_publish_failures_total`,
    help: 'Event publishes that failed (the outbox relay retries them), by type',
    labelNames: ['type'] as const,
    registers,
  });
  const consumed = new client.Counter({
    name: `${METRIC_PREFIX}events_consumed_total`,
    help: 'Deliveries to a consumer by outcome: ack, retry, claimed_elsewhere, dead_letter, ignored, error',
    labelNames: ['consumer', 'outcome'] as const,
    registers,
  });
  const redelivered = new client.Counter({
    name: `${METRIC_PREFIX}events_redelivered_total`,
    help: 'Deliveries that were not the first for their message',
    labelNames: ['consumer'] as const,
    registers,
  });
  const handlerDuration = new client.Histogram({
    name: `${METRIC_PREFIX}event_handler_duration_seconds`,
    help: "Time a consumer's handler took for one delivery, whatever its outcome",
    labelNames: ['consumer'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });

  const watched = new Map<string, Sampler<ConsumerLag>>();
  // One read per consumer serves the three gauges of a scrape (the sampler keeps it 15 s).
  const lagGauge = (name: string, help: string, pick: (l: ConsumerLag) => number) =>
    new client.Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: ['consumer'] as const,
      registers,
      async collect() {
        const lags = await Promise.all(
          [...watched].map(async ([consumer, s]) => [consumer, await s.get()] as const),
        );
        this.reset();
        for (const [consumer, lag] of lags) if (lag) this.set({ consumer }, pick(lag));
      },
    });
  lagGauge(
    'consumer_pending_messages',
    'Messages of BAAS_EVENTS a durable consumer has not been delivered yet (JetStream num_pending)',
    (l) => l.pending,
  );
  lagGauge(
    'consumer_ack_pending_messages',
    'Messages delivered to a durable consumer and not yet acknowledged (JetStream num_ack_pending)',
    (l) => l.ackPending,
  );
  lagGauge(
    'dead_letter_messages',
    'Messages of a consumer in the dead-letter stream BAAS_DLQ (subject baas.dlq.<consumer>)',
    (l) => l.deadLetters,
  );

  return {
    published: (type) => published.inc({ type }),
    publishFailed: (type) => publishFailures.inc({ type }),
    consumed: (consumer, outcome, seconds) => {
      consumed.inc({ consumer, outcome });
      if (seconds !== undefined) handlerDuration.observe({ consumer }, seconds);
    },
    redelivered: (consumer) => redelivered.inc({ consumer }),
    watchConsumer: (consumer, lag) => {
      // Series exist from the start, so rate() and alerts see the first event.
      for (const outcome of OUTCOMES) consumed.inc({ consumer, outcome }, 0);
      redelivered.inc({ consumer }, 0);
      const s = sampler(lag, opts);
      watched.set(consumer, s);
      return () => {
        if (watched.get(consumer) === s) watched.delete(consumer);
      };
    },
  };
}

/**
 * The outbox relays' metrics: events written with their change and not yet published (read
 * when scraped, at most every 15 s, from every relay of the process) and failed relay attempts.
 */
export function outboxMetrics(metrics: Metrics, opts: SampleOptions = {}): OutboxObserver {
  const registers = [metrics.registry];
  const failures = new client.Counter({
    name: `${METRIC_PREFIX}outbox_relay_failures_total`,
    help: 'Outbox relay passes (or immediate relays after a write) that failed; retried on the next pass',
    registers,
  });
  failures.inc(0);
  const sources = new Set<Sampler<number>>();
  new client.Gauge({
    name: `${METRIC_PREFIX}outbox_backlog`,
    help: 'Outbox entries waiting to be published: rows on PostgreSQL, documents holding pending events on MongoDB',
    registers,
    async collect() {
      const counts = await Promise.all([...sources].map((s) => s.get()));
      this.reset();
      if (sources.size > 0 && counts.every((c) => c !== undefined))
        this.set(counts.reduce<number>((a, c) => a + (c ?? 0), 0));
    },
  });
  return {
    relayFailed: () => failures.inc(),
    watchBacklog: (count) => {
      const s = sampler(count, opts);
      sources.add(s);
      return () => void sources.delete(s);
    },
  };
}
