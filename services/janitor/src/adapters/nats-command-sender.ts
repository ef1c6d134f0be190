import type { NatsConnection } from '@nats-io/nats-core';
import { requestTraced, type JanitorCommand, type JanitorReply } from '@baas/common';
import type { CommandSender } from '../ports';

export class NatsCommandSender implements CommandSender {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  async send(subject: string, command: JanitorCommand): Promise<JanitorReply> {
    // A PRODUCER span whose context the owner's CONSUMER span continues (nats-tracing.ts).
    const msg = await requestTraced(this.nc, subject, JSON.stringify(command), { timeout: this.timeoutMs });
    return msg.json<JanitorReply>();
  }
}
