import { DeliverPolicy, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from '../logger';
import type { EventType } from './catalogue';
import { EVENTS_STREAM, subjectFor, type EventEnvelope } from './envelope';
import type { EventsObserver } from './observer';

/**
 * Every replica sees every event of some types, from a start time on: one JetStream ordered
 * consumer per type (ephemeral, no acks, recreated by the client at the right sequence after a
 * gap or a reconnect). Unlike a durable work-queue consumer, which hands each event to one
 * replica, this is for state each replica keeps in memory (the revocation list).
 * One consumer per type because `filter_subjects` needs nats-server 2.10.
 */
export interface FollowOptions {
  types: EventType[];
  /** Replay from this time (events of the stream older than it are skipped). */
  since: Date;
  /** Runs for each event, in stream order per type; must not throw (errors are logged). */
  onEvent: (event: EventEnvelope) => void;
  /** How often the catch-up state is polled until reached. */
  pollMs?: number;
  /** Counts the events applied (`ack`) and not applied (`error`) under `name`. */
  observer?: EventsObserver;
  /** The consumer label of what this follower applies (`follow-<type>` by default). */
  name?: string;
}

export interface EventFollower {
  /** True once every type's backlog (events up to the start) has been applied. */
  caughtUp(): boolean;
  /** Resolves when caughtUp() becomes true. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

export async function followEvents(
  js: JetStreamClient,
  logger: Logger,
  opts: FollowOptions,
): Promise<EventFollower> {
  const pending = new Set<EventType>(opts.types);
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const caught = (type: EventType) => {
    if (pending.delete(type) && pending.size === 0) resolveReady();
  };
  if (pending.size === 0) resolveReady();
  const streams: Array<{ messages: ConsumerMessages; done: Promise<void> }> = [];
  const timers = new Map<EventType, NodeJS.Timeout>();
  try {
    for (const type of opts.types) {
      const consumer = await js.consumers.get(EVENTS_STREAM, {
        filter_subjects: subjectFor(type),
        deliver_policy: DeliverPolicy.StartTime,
        opt_start_time: opts.since.toISOString(),
      });
      const messages = await consumer.consume();
      // Deliveries of the current underlying consumer that were applied (the client resets it
      // when it recreates the consumer, as does the server's count).
      let applied = 0;
      const name = opts.name ?? `follow-${type}`;
      const done = (async () => {
        for await (const m of messages) {
          try {
            opts.onEvent(m.json<EventEnvelope>());
            opts.observer?.consumed(name, 'ack');
          } catch (err) {
            logger.error({ err, subject: m.subject }, 'followed event not applied');
            opts.observer?.consumed(name, 'error');
          }
          applied = m.info.deliverySequence;
          if (m.info.pending === 0) caught(type);
        }
      })();
      streams.push({ messages, done });
      // With no backlog no message says "pending 0": ask the server.
      const poll = async () => {
        if (!pending.has(type)) return;
        try {
          const info = await consumer.info();
          if (info.num_pending === 0 && info.delivered.consumer_seq <= applied) caught(type);
        } catch (err) {
          logger.debug({ err, type }, 'follower info not available yet');
        }
        if (pending.has(type))
          timers.set(
            type,
            setTimeout(() => void poll(), opts.pollMs ?? 200),
          );
      };
      void poll();
    }
  } catch (e) {
    for (const s of streams) await s.messages.close();
    throw e;
  }
  return {
    caughtUp: () => pending.size === 0,
    ready,
    stop: async () => {
      for (const t of timers.values()) clearTimeout(t);
      pending.clear();
      for (const s of streams) {
        await s.messages.close();
        await s.done.catch(() => undefined);
      }
    },
  };
}
