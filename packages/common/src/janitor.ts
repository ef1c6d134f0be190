/**
 * The janitor owns no data: it drives each owner through NATS request/reply commands on these
 * subjects (never reachable through the gateway). Every command is idempotent and works in
 * bounded batches; the reply says how much was done so the janitor can loop until zero.
 */
export const JANITOR_SUBJECTS = {
  /** data: hard-delete documents in the trash since before `olderThan` (publishes document.purged). */
  purgeTrash: 'baas.janitor.data.purge-trash',
  /** storage: delete stored objects without metadata older than `olderThan`, and metadata whose object is gone. */
  sweepOrphans: 'baas.janitor.storage.sweep-orphans',
  /** auth: delete expired refresh sessions and one-time codes. */
  purgeExpiredSessions: 'baas.janitor.auth.purge-expired',
} as const;

/** The services that consume events and keep idempotency records (`processed_events`). */
export const EVENT_CONSUMING_SERVICES = ['auth', 'data', 'storage', 'mail'] as const;
export type EventConsumingService = (typeof EVENT_CONSUMING_SERVICES)[number];

/** Each such service: delete idempotency records older than its own retention. */
export const pruneProcessedEventsSubject = (service: EventConsumingService): string =>
  `baas.janitor.${service}.prune-processed-events`;

/**
 * How long idempotency records are kept (45 days): longer than the event stream keeps an event
 * (7 days) and than the dead-letter stream keeps one for replay (30 days), so no redelivery or
 * replay can find its record pruned.
 */
export const DEFAULT_PROCESSED_EVENTS_RETENTION_SECONDS = 45 * 24 * 60 * 60;
export const MIN_PROCESSED_EVENTS_RETENTION_SECONDS = 31 * 24 * 60 * 60;

/**
 * The cutoff an owner acts on: the janitor's `olderThan`, but never later than the owner's own
 * (now minus its own grace period). A command cannot make an owner delete anything younger than
 * its own setting allows; it can only ask for less.
 */
export function effectiveCutoff(
  olderThan: string | Date,
  ownGraceSeconds: number,
  now: Date = new Date(),
): Date {
  const own = now.getTime() - ownGraceSeconds * 1000;
  const received = new Date(olderThan).getTime();
  return new Date(Number.isNaN(received) ? own : Math.min(received, own));
}

export interface JanitorCommand {
  /** ISO date-time: items older than this are eligible. */
  olderThan: string;
  /** Upper bound on items handled by this call. */
  batchSize: number;
}

export interface JanitorReply {
  ok: boolean;
  processed: number;
  /** True when more eligible items remain (the janitor calls again). */
  more: boolean;
  error?: string;
}

/** Queue group so exactly one replica of the owner answers each command. */
export const JANITOR_QUEUE = 'janitor-workers';
