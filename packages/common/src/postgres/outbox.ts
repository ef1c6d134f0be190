import type { Logger } from '../logger';
import type { EventPublisher } from '../events/bus';
import type { EventEnvelope } from '../events/envelope';
import { RelayLoop } from '../events/relay-loop';
import type { Pool, Queryable } from './pool';

/**
 * Records events in the `outbox` table inside the caller's transaction: the events exist if and
 * only if the change they describe was committed.
 */
export async function appendOutbox(tx: Queryable, events: EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  await tx.query('INSERT INTO outbox (event) SELECT * FROM unnest($1::jsonb[])', [
    events.map((e) => JSON.stringify(e)),
  ]);
}

/**
 * Publishes outbox rows in commit order and deletes them, a batch per transaction. The rows are
 * locked with SKIP LOCKED, so several replicas drain one outbox without publishing a row at the
 * same time; a re-publish after a crash is dropped by JetStream's duplicate window (the event id
 * is the message id), and consumers are idempotent anyway. The cost of a pass with nothing
 * pending is one index probe.
 */
export class PgOutboxRelay extends RelayLoop {
  constructor(
    private readonly pool: Pool,
    private readonly publisher: EventPublisher,
    logger: Logger,
    opts: { intervalMs?: number; batchSize?: number } = {},
  ) {
    super(logger, opts.intervalMs ?? 1000);
    this.batchSize = opts.batchSize ?? 100;
  }

  private readonly batchSize: number;

  protected async pass(): Promise<void> {
    while (!this.stopped && (await this.batch()) === this.batchSize);
  }

  private async batch(): Promise<number> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ seq: string; event: EventEnvelope }>(
        'SELECT seq, event FROM outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED',
        [this.batchSize],
      );
      for (const r of rows) await this.publisher.publish(r.event);
      if (rows.length > 0)
        await client.query('DELETE FROM outbox WHERE seq = ANY($1::bigint[])', [rows.map((r) => r.seq)]);
      await client.query('COMMIT');
      return rows.length;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw e;
    } finally {
      client.release(broken ? true : undefined);
    }
  }
}
