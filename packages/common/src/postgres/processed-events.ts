import { randomUUID } from 'node:crypto';
import type { ClaimResult, ProcessedEvents } from '../events/idempotency';
import type { Pool } from './pool';

/**
 * Consumer idempotency on PostgreSQL: one row per (consumer, event). A claim is one statement
 * (insert, or take over an unfinished claim older than the lease), timed by the database's
 * clock so replicas with skewed clocks agree on when a lease ends.
 */
export class PgProcessedEvents implements ProcessedEvents {
  constructor(private readonly pool: Pool) {}

  async claim(consumer: string, eventId: string, leaseMs: number): Promise<ClaimResult> {
    const token = randomUUID();
    const taken = await this.pool.query(
      `INSERT INTO processed_events (consumer, event_id, at, token) VALUES ($1, $2, now(), $3)
       ON CONFLICT (consumer, event_id) DO UPDATE SET at = now(), token = EXCLUDED.token
         WHERE processed_events.done_at IS NULL
           AND processed_events.at < now() - make_interval(secs => $4::float8 / 1000)`,
      [consumer, eventId, token, leaseMs],
    );
    if (taken.rowCount === 1) return { status: 'claimed', token };
    const { rows } = await this.pool.query<{ done: boolean; remaining_ms: number }>(
      `SELECT done_at IS NOT NULL AS done,
              GREATEST(0, EXTRACT(EPOCH FROM (at - now())) * 1000 + $3::float8)::float8 AS remaining_ms
       FROM processed_events WHERE consumer = $1 AND event_id = $2`,
      [consumer, eventId, leaseMs],
    );
    const row = rows[0];
    // Released between our insert and this read: let the redelivery claim it.
    if (!row) return { status: 'busy', retryInMs: 0 };
    if (row.done) return { status: 'done' };
    return { status: 'busy', retryInMs: Math.ceil(row.remaining_ms) };
  }

  async complete(consumer: string, eventId: string): Promise<void> {
    await this.pool.query(
      // An upsert: a claim released meanwhile by a successor that failed is done all the same.
      `INSERT INTO processed_events (consumer, event_id, at, done_at) VALUES ($1, $2, now(), now())
       ON CONFLICT (consumer, event_id) DO UPDATE SET done_at = COALESCE(processed_events.done_at, now())`,
      [consumer, eventId],
    );
  }

  async release(consumer: string, eventId: string, token: string): Promise<void> {
    await this.pool.query(
      `DELETE FROM processed_events
       WHERE consumer = $1 AND event_id = $2 AND token = $3 AND done_at IS NULL`,
      [consumer, eventId, token],
    );
  }

  async prune(olderThan: Date, limit: number): Promise<number> {
    const r = await this.pool.query(
      `DELETE FROM processed_events WHERE (consumer, event_id) IN (
         SELECT consumer, event_id FROM processed_events WHERE at < $1 ORDER BY at LIMIT $2)`,
      [olderThan, limit],
    );
    return r.rowCount ?? 0;
  }
}
