import {
  EVENT_CONSUMING_SERVICES,
  JANITOR_SUBJECTS,
  pruneProcessedEventsSubject,
  type Logger,
} from '@baas/common';
import type { CommandSender, Lease } from '../ports';

export interface SweepTask {
  name: 'purge-trash' | 'sweep-orphans' | 'purge-expired' | `prune-processed-events-${string}`;
  subject: string;
  /**
   * Items older than this many seconds are eligible. Each owner clamps the cutoff to its own
   * setting, so the janitor can only ask for less than the owner allows, never more.
   */
  graceSeconds: number;
}

export function sweepTasks(cfg: { trashGraceSeconds: number; orphanGraceSeconds: number }): SweepTask[] {
  return [
    { name: 'purge-trash', subject: JANITOR_SUBJECTS.purgeTrash, graceSeconds: cfg.trashGraceSeconds },
    { name: 'sweep-orphans', subject: JANITOR_SUBJECTS.sweepOrphans, graceSeconds: cfg.orphanGraceSeconds },
    { name: 'purge-expired', subject: JANITOR_SUBJECTS.purgeExpiredSessions, graceSeconds: 0 },
    // Idempotency records: each service applies its own retention (PROCESSED_EVENTS_RETENTION_SECONDS).
    ...EVENT_CONSUMING_SERVICES.map((service) => ({
      name: `prune-processed-events-${service}` as const,
      subject: pruneProcessedEventsSubject(service),
      graceSeconds: 0,
    })),
  ];
}

/** How long a starting janitor waits before its first sweep, at most. */
export const FIRST_SWEEP_DELAY_MAX_SECONDS = 30;

/**
 * Seconds from start to the first sweep: a short settling time (or one interval when that is
 * shorter). Started with the services it commands, as in a fresh cluster or `npm run up`, an
 * immediate sweep met owners not yet subscribed: every task failed with "no responders", logged as
 * an error, on every start.
 */
export function firstSweepDelaySeconds(intervalSeconds: number): number {
  return Math.min(intervalSeconds, FIRST_SWEEP_DELAY_MAX_SECONDS);
}

export interface SweepObserver {
  processed(task: string, n: number): void;
  failed(task: string): void;
  duration(task: string, seconds: number): void;
}

export interface SweepDeps {
  lease: Lease;
  sender: CommandSender;
  logger: Logger;
  observer: SweepObserver;
  batchSize: number;
  maxBatches: number;
  now?: () => Date;
}

/**
 * One sweep: under the lease, each task is driven in bounded batches until its owner says
 * nothing more is eligible. Every command is idempotent at the owner, so a sweep killed at any
 * point is simply continued by the next one. Returns false when another replica held the lease.
 */
export async function runSweep(deps: SweepDeps, tasks: SweepTask[]): Promise<boolean> {
  if (!(await deps.lease.acquire())) return false;
  try {
    for (const task of tasks) {
      const started = process.hrtime.bigint();
      try {
        const olderThan = new Date(
          (deps.now?.() ?? new Date()).getTime() - task.graceSeconds * 1000,
        ).toISOString();
        for (let i = 0; i < deps.maxBatches; i++) {
          if (!(await deps.lease.renew())) {
            deps.logger.warn({ task: task.name }, 'lost the janitor lease mid-sweep; stopping');
            return true;
          }
          const reply = await deps.sender.send(task.subject, { olderThan, batchSize: deps.batchSize });
          if (!reply.ok) throw new Error(reply.error ?? 'owner reported failure');
          deps.observer.processed(task.name, reply.processed);
          if (!reply.more) break;
        }
      } catch (err) {
        deps.observer.failed(task.name);
        deps.logger.error({ err, task: task.name }, 'janitor task failed; the next sweep retries');
      } finally {
        deps.observer.duration(task.name, Number(process.hrtime.bigint() - started) / 1e9);
      }
    }
    return true;
  } finally {
    await deps.lease.release().catch(() => undefined);
  }
}
