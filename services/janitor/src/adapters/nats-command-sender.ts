import type { NatsConnection } from '@nats-io/nats-core';
import type { JanitorCommand, JanitorReply } from '@baas/common';
import type { CommandSender } from '../ports';

export class NatsCommandSender implements CommandSender {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  async send(subject: string, command: JanitorCommand): Promise<JanitorReply> {
    const msg = await this.nc.request(subject, JSON.stringify(command), { timeout: this.timeoutMs });
    return msg.json<JanitorReply>();
  }
}
