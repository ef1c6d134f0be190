import type { NatsConnection } from '@nats-io/nats-core';
import { JANITOR_QUEUE, JANITOR_SUBJECTS, type JanitorCommand, type JanitorReply, type Logger } from '@baas/common';

const MAX_BATCH = 1000;

/** Answers the janitor's `purgeTrash` command (one replica per command, via the queue group). */
export function answerPurgeTrash(
  nc: NatsConnection,
  logger: Logger,
  purge: (olderThan: Date, batchSize: number) => Promise<JanitorReply>,
  subject: string = JANITOR_SUBJECTS.purgeTrash,
): { close: () => Promise<void> } {
  const sub = nc.subscribe(subject, { queue: JANITOR_QUEUE });
  const done = (async () => {
    for await (const m of sub) {
      let reply: JanitorReply;
      try {
        const cmd = m.json<Partial<JanitorCommand>>();
        const olderThan = new Date(String(cmd.olderThan));
        const batchSize = Number(cmd.batchSize);
        if (Number.isNaN(olderThan.getTime()) || !Number.isInteger(batchSize) || batchSize < 1)
          throw new Error('invalid command: olderThan (ISO date) and batchSize (positive integer) are required');
        reply = await purge(olderThan, Math.min(batchSize, MAX_BATCH));
      } catch (err) {
        logger.error({ err }, 'purge-trash command failed');
        reply = { ok: false, processed: 0, more: false, error: (err as Error).message };
      }
      m.respond(JSON.stringify(reply));
    }
  })();
  return {
    close: async () => {
      sub.unsubscribe();
      await done;
    },
  };
}
