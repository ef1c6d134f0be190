import { prepared, type Pool } from '@baas/common/postgres';
import type { InsertOutcome } from '../../ports';

/** One document insert waiting for its project's next statement. */
export interface PendingInsert {
  collection: string;
  id: string;
  /** The document's fields as JSON text. */
  body: string;
  isDeleted: boolean;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Its events as JSON texts, written to the outbox in the same statement. */
  events: string[];
  quotaLimit: number;
}

interface Waiting {
  item: PendingInsert;
  resolve: (outcome: InsertOutcome) => void;
  reject: (err: unknown) => void;
}

/** At most this many documents in one statement. */
const MAX_BATCH = 128;

/**
 * Inserts of one project go through its quota row and its collections' counter rows, which every
 * insert of the project updates: concurrent inserts queue on those row locks, one commit after
 * the other (measured here: ~4,000 plain inserts/s, ~700/s through the two counter rows). So the
 * inserts that arrive while a project's statement runs wait for it and then go together in the
 * next one: one quota update (+k, only if all k fit), one counter update per collection, one
 * commit. Nothing waits when nothing is running (the first insert goes at once), so a lone
 * insert costs what it did. A batch that does not fit the quota, or fails, is retried one by one,
 * so each insert gets exactly its own answer (inserted, quota_exceeded or its own error). Exact
 * across replicas: the quota check is still one atomic statement per batch.
 */
export class InsertBatcher {
  private readonly queues = new Map<string, Waiting[]>();

  constructor(private readonly pool: Pool) {}

  insert(projectId: string, item: PendingInsert): Promise<InsertOutcome> {
    return new Promise<InsertOutcome>((resolve, reject) => {
      const queue = this.queues.get(projectId);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      const fresh: Waiting[] = [{ item, resolve, reject }];
      this.queues.set(projectId, fresh);
      void this.drain(projectId, fresh);
    });
  }

  private async drain(projectId: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      // one quota limit per statement (settings of one project rarely differ between requests)
      const limit = queue[0]!.item.quotaLimit;
      let n = 1;
      while (n < queue.length && n < MAX_BATCH && queue[n]!.item.quotaLimit === limit) n++;
      const batch = queue.splice(0, n);
      if (batch.length === 1 || batch.length > limit) await this.oneByOne(projectId, batch);
      else await this.together(projectId, batch, limit);
    }
    this.queues.delete(projectId);
  }

  private async together(projectId: string, batch: Waiting[], limit: number): Promise<void> {
    let inserted: number;
    try {
      inserted = await this.run(projectId, batch, limit);
    } catch {
      // which insert failed (a duplicate id, say)? each one alone says
      return this.oneByOne(projectId, batch);
    }
    if (inserted === batch.length) for (const w of batch) w.resolve('inserted');
    else await this.oneByOne(projectId, batch); // not all fit: admit as many as fit, in order
  }

  private async oneByOne(projectId: string, batch: Waiting[]): Promise<void> {
    for (const w of batch) {
      try {
        const n = await this.run(projectId, [w], w.item.quotaLimit);
        w.resolve(n === 1 ? 'inserted' : 'quota_exceeded');
      } catch (e) {
        w.reject(e);
      }
    }
  }

  /** One statement: the quota (+k if all k fit), the documents, the counters, the events. */
  private async run(projectId: string, batch: Waiting[], limit: number): Promise<number> {
    const items = batch.map((w) => w.item);
    const { rows } = await this.pool.query<{ n: number }>(
      prepared(
        `WITH counted AS (
           INSERT INTO project_document_counts AS c (project_id, documents) VALUES ($1, $2)
           ON CONFLICT (project_id) DO UPDATE SET documents = c.documents + $2
             WHERE c.documents + $2 <= $3
           RETURNING 1
         ), inserted AS (
           INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
           SELECT $1, d.collection, d.id, d.body, d.is_deleted, d.deleted_at, d.created_at, d.updated_at
           FROM unnest($4::text[], $5::text[], $6::jsonb[], $7::boolean[], $8::timestamptz[],
                       $9::timestamptz[], $10::timestamptz[])
                AS d(collection, id, body, is_deleted, deleted_at, created_at, updated_at)
           WHERE EXISTS (SELECT 1 FROM counted)
           RETURNING collection
         ), counts AS (
           INSERT INTO collection_counts AS k (project_id, collection, live)
           SELECT $1, collection, count(*) FROM inserted GROUP BY collection
           ON CONFLICT (project_id, collection) DO UPDATE SET live = k.live + EXCLUDED.live
         ), events AS (
           INSERT INTO outbox (event) SELECT unnest($11::jsonb[]) WHERE EXISTS (SELECT 1 FROM inserted)
         )
         SELECT count(*)::int AS n FROM inserted`,
        [
          projectId,
          items.length,
          limit,
          items.map((i) => i.collection),
          items.map((i) => i.id),
          items.map((i) => i.body),
          items.map((i) => i.isDeleted),
          items.map((i) => i.deletedAt),
          items.map((i) => i.createdAt),
          items.map((i) => i.updatedAt),
          items.flatMap((i) => i.events),
        ],
      ),
    );
    return rows[0]?.n ?? 0;
  }
}
