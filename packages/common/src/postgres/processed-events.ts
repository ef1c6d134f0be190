import type { ProcessedEvents } from '../events/idempotency';
import type { Pool } from './pool';

/** Consumer idempotency on PostgreSQL: a claim is an insert on the (consumer, event) key. */
export class PgProcessedEvents implements ProcessedEvents {
  constructor(private readonly pool: Pool) {}

  async claim(consumer: string, eventId: string): Promise<boolean> {
    const r = await this.pool.query(
      'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [consumer, eventId],
    );
    return r.rowCount === 1;
  }

  async release(consumer: string, eventId: string): Promise<void> {
    await this.pool.query('DELETE FROM processed_events WHERE consumer = $1 AND event_id = $2', [
      consumer,
      eventId,
    ]);
  }
}
