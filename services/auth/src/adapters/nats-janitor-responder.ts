import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { JANITOR_QUEUE, type JanitorCommand, type JanitorReply, type Logger } from '@baas/common';

/** Answers one janitor command subject (request/reply, queue group: one replica answers). */
export function respondToJanitor(
  nc: NatsConnection,
  subject: string,
  handler: (cmd: JanitorCommand) => Promise<JanitorReply>,
  logger: Logger,
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
          const cmd = msg.json<JanitorCommand>();
          if (typeof cmd?.olderThan !== 'string' || typeof cmd.batchSize !== 'number') throw new Error('malformed janitor command');
          reply = await handler(cmd);
        } catch (e) {
          logger.error({ err: e, subject }, 'janitor command failed');
          reply = { ok: false, processed: 0, more: false, error: (e as Error).message };
        }
        msg.respond(JSON.stringify(reply));
      })();
    },
  });
}
