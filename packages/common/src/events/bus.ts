import { performance } from 'node:perf_hooks';
import { headers, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { Logger } from '../logger';
import { runWithContext } from '../request-context';
import type { EventType } from './catalogue';
import { ClaimBusyError, type DeliveryInfo } from './idempotency';
import { tracedConsume, tracedPublish } from './tracing';
import type { ConsumeOutcome, ConsumerLag, EventsObserver } from './observer';
import {
  DLQ_STREAM,
  DLQ_SUBJECT_PREFIX,
  EVENTS_STREAM,
  EVENTS_SUBJECT_PREFIX,
  subjectFor,
  type EventEnvelope,
} from './envelope';

/** Port: what a use case or the outbox relay needs to publish. */
export interface EventPublisher {
  publish(event: EventEnvelope): Promise<void>;
}

const DAY_NS = nanos(24 * 60 * 60 * 1000);

export interface StreamOptions {
  replicas?: number;
  /**
   * false when the setup Job created the streams (DB_MIGRATE_ON_BOOT=false): the process only
   * checks that they exist, and refuses to start if not.
   */
  ensure?: boolean;
  /** Who is starting (named in the error when the streams are missing). */
  service?: string;
}

/** Thrown at boot when the streams are missing and this process may not create them. */
export class StreamsMissingError extends Error {
  constructor(missing: string[], service = '<service>') {
    super(
      `JetStream stream(s) ${missing.join(', ')} missing: run the setup Job (node services/${service}/dist/setup.js) or start with DB_MIGRATE_ON_BOOT=true`,
    );
    this.name = 'StreamsMissingError';
  }
}

/** The names of the streams every service relies on that do not exist. */
export async function missingStreams(jsm: JetStreamManager): Promise<string[]> {
  const missing: string[] = [];
  for (const name of [EVENTS_STREAM, DLQ_STREAM]) {
    const found = await jsm.streams.info(name).then(
      () => true,
      (e: unknown) => {
        if (e instanceof JetStreamApiError && e.status === 404) return false;
        throw e;
      },
    );
    if (!found) missing.push(name);
  }
  return missing;
}

/** Creates or updates the streams every service relies on; safe to run from every replica. */
export async function ensureStreams(jsm: JetStreamManager, opts: StreamOptions = {}): Promise<void> {
  const streams = [
    {
      name: EVENTS_STREAM,
      subjects: [`${EVENTS_SUBJECT_PREFIX}.>`],
      max_age: 7 * DAY_NS,
      // Longer than the outbox relay's retry horizon, so a re-publish is dropped as a duplicate.
      duplicate_window: nanos(10 * 60 * 1000),
    },
    {
      name: DLQ_STREAM,
      subjects: [`${DLQ_SUBJECT_PREFIX}.>`],
      max_age: 30 * DAY_NS,
      duplicate_window: nanos(2 * 60 * 1000),
    },
  ];
  for (const s of streams) {
    const config = {
      ...s,
      num_replicas: opts.replicas ?? 1,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_bytes: 1024 * 1024 * 1024,
    };
    try {
      await jsm.streams.info(s.name);
      await jsm.streams.update(s.name, config);
    } catch {
      try {
        await jsm.streams.add(config);
      } catch (e) {
        // Another replica may have created it between our info and add.
        await jsm.streams.info(s.name).catch(() => {
          throw e;
        });
      }
    }
  }
}

export class JetStreamBus implements EventPublisher {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly logger: Logger,
    /** What is published and consumed, and each durable consumer's lag (metrics). */
    readonly observer?: EventsObserver,
  ) {}

  static async create(
    nc: NatsConnection,
    logger: Logger,
    streams: StreamOptions = {},
    observer?: EventsObserver,
  ): Promise<JetStreamBus> {
    const jsm = await jetstreamManager(nc);
    if (streams.ensure === false) {
      const missing = await missingStreams(jsm);
      if (missing.length > 0) throw new StreamsMissingError(missing, streams.service);
    } else await ensureStreams(jsm, streams);
    return new JetStreamBus(nc, jetstream(nc), jsm, logger, observer);
  }

  async publish(event: EventEnvelope): Promise<void> {
    const h = headers();
    h.set('baas-event-type', event.type);
    const subject = subjectFor(event.type);
    try {
      // The producer span's trace context goes into the headers (tracing off: the event's own).
      await tracedPublish(subject, event, h, () =>
        this.js.publish(subject, JSON.stringify(event), { msgID: event.id, headers: h, timeout: 5000 }),
      );
    } catch (e) {
      this.observer?.publishFailed(event.type);
      throw e;
    }
    this.observer?.published(event.type);
  }

  /**
   * A durable pull consumer with explicit acks, bounded redelivery with backoff, and a
   * dead-letter subject for messages that fail maxDeliver times.
   */
  async consume<K extends EventType>(opts: ConsumerOptions<K>): Promise<ConsumerHandle> {
    const maxDeliver = opts.maxDeliver ?? 8;
    const ackWaitMs = opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const backoffMs = opts.backoffMs ?? [1000, 5000, 15000, 30000, 60000];
    const subjects = opts.types.map(subjectFor);
    // filter_subjects needs nats-server 2.10; older servers get one filter or all events,
    // and events of other types are acknowledged without running the handler.
    const multiFilter = serverAtLeast(this.nc.info?.version, 2, 10);
    // An update merges into the stored configuration: the other form of filter is cleared
    // explicitly, or a consumer created on an older server kept taking every event.
    const filter =
      subjects.length === 1
        ? { filter_subject: subjects[0], ...(multiFilter ? { filter_subjects: [] } : {}) }
        : multiFilter
          ? { filter_subjects: subjects, filter_subject: '' }
          : { filter_subject: `${EVENTS_SUBJECT_PREFIX}.>` };
    const wanted = new Set<string>(opts.types);
    const config = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: opts.deliverNew ? DeliverPolicy.New : DeliverPolicy.All,
      ...filter,
      max_deliver: maxDeliver,
      ack_wait: nanos(ackWaitMs),
      max_ack_pending: opts.maxAckPending ?? 256,
      ...(opts.inactiveThresholdMs ? { inactive_threshold: nanos(opts.inactiveThresholdMs) } : {}),
    };
    const existing = await this.jsm.consumers.info(EVENTS_STREAM, opts.durable).catch(() => undefined);
    if (existing) {
      // a configuration the server refuses to change in place is kept, and said
      await this.jsm.consumers.update(EVENTS_STREAM, opts.durable, config).catch((err: unknown) => {
        this.logger.warn({ err, consumer: opts.durable }, 'consumer configuration not updated');
      });
    } else {
      await this.jsm.consumers.add(EVENTS_STREAM, config).catch(async (e: unknown) => {
        await this.jsm.consumers.info(EVENTS_STREAM, opts.durable).catch(() => {
          throw e;
        });
      });
    }
    const consumer = await this.js.consumers.get(EVENTS_STREAM, opts.durable);
    const concurrency = Math.max(1, opts.concurrency ?? 16);
    const messages = await consumer.consume({ max_messages: concurrency });
    const logger = this.logger.child({ consumer: opts.durable });
    const delivery = { maxDeliver, backoffMs, ackWaitMs };
    // A bounded worker pool: up to `concurrency` messages are handled at once, so one slow
    // handler (an SMTP server that hangs) holds one slot, not the whole consumer. Nothing waits
    // in line for a retry: a failed message is nak'ed with its backoff and comes back later.
    const pool = new WorkerPool(concurrency);
    const unwatch = this.observer?.watchConsumer(opts.durable, () => this.lagOf(opts.durable));
    const done = (async () => {
      for await (const m of messages) {
        const type =
          (m.headers as MsgHdrs | undefined)?.get('baas-event-type') ||
          m.subject.slice(EVENTS_SUBJECT_PREFIX.length + 1);
        if (m.info.redelivered) this.observer?.redelivered(opts.durable);
        if (!wanted.has(type)) {
          m.ack();
          this.observer?.consumed(opts.durable, 'ignored');
          continue;
        }
        await pool.run(() => this.handleOne(m, opts, delivery, logger));
      }
    })();
    return {
      stop: async () => {
        unwatch?.();
        await messages.close();
        await done.catch(() => undefined);
        await pool.drain();
      },
    };
  }

  /** A durable consumer's lag and dead letters, from JetStream (two API requests). */
  private async lagOf(durable: string): Promise<ConsumerLag> {
    const subject = `${DLQ_SUBJECT_PREFIX}.${durable}`;
    const [consumer, dlq] = await Promise.all([
      this.jsm.consumers.info(EVENTS_STREAM, durable),
      this.jsm.streams.info(DLQ_STREAM, { subjects_filter: subject }),
    ]);
    return {
      pending: consumer.num_pending,
      ackPending: consumer.num_ack_pending,
      deadLetters: dlq.state.subjects?.[subject] ?? 0,
    };
  }

  private async handleOne<K extends EventType>(
    m: JsMsg,
    opts: ConsumerOptions<K>,
    delivery: { maxDeliver: number; backoffMs: number[]; ackWaitMs: number },
    logger: Logger,
  ): Promise<void> {
    const started = performance.now();
    const outcome = await this.deliver(m, opts, delivery, logger);
    this.observer?.consumed(
      opts.durable,
      outcome.outcome,
      outcome.handled ? (performance.now() - started) / 1000 : undefined,
    );
  }

  private async deliver<K extends EventType>(
    m: JsMsg,
    opts: ConsumerOptions<K>,
    { maxDeliver, backoffMs, ackWaitMs }: { maxDeliver: number; backoffMs: number[]; ackWaitMs: number },
    logger: Logger,
  ): Promise<{ outcome: ConsumeOutcome; handled: boolean }> {
    let event: EventEnvelope;
    try {
      event = m.json<EventEnvelope>();
    } catch {
      logger.error({ subject: m.subject }, 'undecodable event, sent to dead letters');
      await this.deadLetter(opts.durable, m, 'undecodable');
      m.term('undecodable');
      return { outcome: 'dead_letter', handled: false };
    }
    try {
      // Events published while handling this one continue its trace.
      await runWithContext(
        {
          requestId: event.requestId,
          traceparent: event.traceparent,
          projectId: event.projectId ?? undefined,
        },
        () =>
          tracedConsume(m, { messageId: event.id, consumer: opts.durable }, () =>
            // Only the subscribed types get here (the others are acknowledged unhandled).
            opts.handler(event as EventEnvelope<K>, { attempt: m.info.deliveryCount, ackWaitMs }),
          ),
      );
      m.ack();
      return { outcome: 'ack', handled: true };
    } catch (err) {
      const attempt = m.info.deliveryCount;
      if (err instanceof ClaimBusyError && attempt < maxDeliver) {
        // Another delivery holds the claim (a slow handler, or a process that died holding it):
        // come back when its lease ends, and take it over then if it is still unfinished.
        logger.info(
          { eventId: event.id, type: event.type, attempt, retryInMs: err.retryInMs },
          'event claimed elsewhere, retrying after its lease',
        );
        m.nak(Math.max(100, err.retryInMs));
        return { outcome: 'claimed_elsewhere', handled: true };
      }
      if (attempt >= maxDeliver) {
        logger.error(
          { err, eventId: event.id, type: event.type, attempt },
          'event failed for the last time, sent to dead letters',
        );
        await this.deadLetter(opts.durable, m, (err as Error).message);
        m.term('max deliveries');
        return { outcome: 'dead_letter', handled: true };
      } else {
        const delay = backoffMs[Math.min(attempt - 1, backoffMs.length - 1)] ?? 1000;
        logger.warn(
          { err, eventId: event.id, type: event.type, attempt, retryInMs: delay },
          'event handler failed, will retry',
        );
        m.nak(delay);
        return { outcome: 'retry', handled: true };
      }
    }
  }

  private async deadLetter(durable: string, m: JsMsg, reason: string): Promise<void> {
    const h = headers();
    h.set('baas-dlq-reason', reason.slice(0, 200));
    h.set('baas-dlq-subject', m.subject);
    await this.js
      .publish(`${DLQ_SUBJECT_PREFIX}.${durable}`, m.data, {
        headers: h,
        msgID: `${durable}:${m.info.streamSequence}`,
      })
      .catch((e: unknown) => this.logger.error({ err: e }, 'could not write dead letter'));
  }
}

function serverAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const [ma, mi] = (version ?? '0.0').split('.').map((n) => Number.parseInt(n, 10));
  return (ma ?? 0) > major || ((ma ?? 0) === major && (mi ?? 0) >= minor);
}

export interface ConsumerOptions<K extends EventType = EventType> {
  /** Durable name: one per service and purpose, e.g. `storage-project-deleted`. */
  durable: string;
  types: K[];
  /**
   * Must be idempotent: a redelivered event has one effect (wrap it with `idempotent`, which
   * takes its claim's lease from the delivery's ack wait). It sees only events of `types`.
   */
  handler: (event: EventEnvelope<K>, delivery: DeliveryInfo) => Promise<void>;
  maxDeliver?: number;
  backoffMs?: number[];
  /** How long a delivery may stay unacknowledged before JetStream redelivers it (30 s). */
  ackWaitMs?: number;
  maxAckPending?: number;
  /** Messages handled at once (a worker pool), and the size of the pull buffer (16). */
  concurrency?: number;
  /**
   * The server deletes the consumer after this long without a pull (tests' one-off consumers;
   * never for a service's own, whose position must survive a restart).
   */
  inactiveThresholdMs?: number;
  /**
   * Start at the events published after the consumer is made, not at the stream's first one (a
   * test's one-off consumer: on a machine that has kept a week of events, replaying them all
   * takes longer than the test waits). Never for a service's own consumer.
   */
  deliverNew?: boolean;
}

export const DEFAULT_ACK_WAIT_MS = 30_000;

/** Runs at most `size` tasks at once; `run` resolves when the task has a slot (not when it ends). */
export class WorkerPool {
  private readonly running = new Set<Promise<void>>();
  constructor(private readonly size: number) {}

  async run(task: () => Promise<void>): Promise<void> {
    while (this.running.size >= this.size) await Promise.race(this.running);
    const p: Promise<void> = task()
      .catch(() => undefined)
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }

  /** Resolves when every task started so far has ended. */
  async drain(): Promise<void> {
    await Promise.all([...this.running]);
  }
}

export interface ConsumerHandle {
  stop(): Promise<void>;
}
