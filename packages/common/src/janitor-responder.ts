import type { NatsConnection } from '@nats-io/nats-core';
import { z } from 'zod';
import type { Logger } from './logger';
import type { ProcessedEvents } from './events/idempotency';
import { failActiveSpan, processTraced } from './nats-tracing';
import {
  effectiveCutoff,
  JANITOR_QUEUE,
  pruneProcessedEventsSubject,
  type EventConsumingService,
  type JanitorCommand,
  type JanitorReply,
} from './janitor';

const MAX_BATCH = 1000;

const commandSchema = z.object({
  olderThan: z.iso.datetime({ offset: true }),
  batchSize: z.number().int().min(1),
});

/**
 * The owner's side of a janitor command: answers one subject in the queue group (one replica
 * answers each request), one command at a time, with the batch size capped. A malformed command
 * or a failing run is answered `ok: false`, never left without a reply.
 */
export function answerJanitor(
  nc: NatsConnection,
  subject: string,
  logger: Logger,
  run: (cmd: JanitorCommand) => Promise<JanitorReply>,
): { close: () => Promise<void> } {
  const sub = nc.subscribe(subject, { queue: JANITOR_QUEUE });
  const done = (async () => {
    for await (const m of sub)
      // In the janitor's trace (its request span's context is in the headers), reply included.
      await processTraced(m, { group: JANITOR_QUEUE }, async () => {
        let reply: JanitorReply;
        try {
          const parsed = commandSchema.safeParse(m.json());
          reply = parsed.success
            ? await run({
                olderThan: parsed.data.olderThan,
                batchSize: Math.min(parsed.data.batchSize, MAX_BATCH),
              })
            : {
                ok: false,
                processed: 0,
                more: false,
                error:
                  'invalid command: olderThan (ISO date-time) and batchSize (positive integer) are required',
              };
        } catch (err) {
          logger.error({ err, subject }, 'janitor command failed');
          reply = { ok: false, processed: 0, more: false, error: (err as Error).message };
        }
        if (!reply.ok) failActiveSpan(reply.error ?? 'janitor command failed');
        m.respond(JSON.stringify(reply));
      });
  })();
  return {
    close: async () => {
      sub.unsubscribe();
      await done;
    },
  };
}

/**
 * The retention of idempotency records: deletes those claimed before the command's cutoff,
 * clamped to now minus the service's own retention, in bounded batches.
 */
export async function pruneProcessedEvents(
  processed: ProcessedEvents,
  cmd: JanitorCommand,
  retentionSeconds: number,
  now: Date = new Date(),
): Promise<JanitorReply> {
  const n = await processed.prune(effectiveCutoff(cmd.olderThan, retentionSeconds, now), cmd.batchSize);
  return { ok: true, processed: n, more: n === cmd.batchSize };
}

/** Every event-consuming service answers the janitor's prune of its `processed_events`. */
export function answerProcessedEventsPrune(
  nc: NatsConnection,
  service: EventConsumingService,
  processed: ProcessedEvents,
  retentionSeconds: number,
  logger: Logger,
): { close: () => Promise<void> } {
  return answerJanitor(nc, pruneProcessedEventsSubject(service), logger, (cmd) =>
    pruneProcessedEvents(processed, cmd, retentionSeconds),
  );
}
