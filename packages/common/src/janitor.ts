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
