import { DeliverPolicy } from '@nats-io/jetstream';
import { EVENTS_STREAM, type EventEnvelope, type JetStreamBus } from '../../src';

/** The events stream's last sequence: read before a test, to read what it published after. */
export async function streamEnd(bus: JetStreamBus): Promise<number> {
  return (await bus.jsm.streams.info(EVENTS_STREAM)).state.last_seq;
}

/**
 * What the events stream holds from `afterSeq` on for one project, in stream order: the
 * stream's own content, so a duplicate JetStream let through would show up twice.
 */
export async function streamEvents(
  bus: JetStreamBus,
  afterSeq: number,
  projectId: string,
): Promise<EventEnvelope[]> {
  const end = await streamEnd(bus);
  const found: EventEnvelope[] = [];
  if (end <= afterSeq) return found;
  const consumer = await bus.js.consumers.get(EVENTS_STREAM, {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: afterSeq + 1,
  });
  let next = afterSeq + 1;
  while (next <= end) {
    const batch = await consumer.fetch({ max_messages: Math.min(500, end - next + 1), expires: 5000 });
    let got = 0;
    for await (const m of batch) {
      got++;
      next = m.seq + 1;
      const e = m.json<EventEnvelope>();
      if (e.projectId === projectId) found.push(e);
    }
    if (got === 0) throw new Error(`events stream read stalled at sequence ${next} of ${end}`);
  }
  await consumer.delete().catch(() => undefined);
  return found;
}
