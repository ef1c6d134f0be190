import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { z } from 'zod';
import { JANITOR_QUEUE, type JanitorCommand, type JanitorReply, type Logger } from '@baas/common';

const commandSchema = z.object({
  olderThan: z.iso.datetime({ offset: true }),
  batchSize: z.number().int().min(1).max(10000),
});

/** Answers one janitor command subject (queue group: one replica answers each request). */
export function answerJanitor(
  nc: NatsConnection,
  subject: string,
  logger: Logger,
  run: (cmd: JanitorCommand) => Promise<JanitorReply>,
): Subscription {
  return nc.subscribe(subject, {
    queue: JANITOR_QUEUE,
    callback: (err, msg) => {
      if (err) {
        logger.warn({ err, subject }, 'janitor subscription error');
        return;
      }
      void (async () => {
        let reply: JanitorReply;
        try {
          const parsed = commandSchema.safeParse(msg.json());
          reply = parsed.success
            ? await run(parsed.data)
            : { ok: false, processed: 0, more: false, error: 'invalid command' };
        } catch (e) {
          logger.error({ err: e, subject }, 'janitor command failed');
          reply = { ok: false, processed: 0, more: false, error: (e as Error).message };
        }
        msg.respond(JSON.stringify(reply));
      })();
    },
  });
}
