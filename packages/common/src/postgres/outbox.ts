import type { Logger } from '../logger';
import type { EventPublisher } from '../events/bus';
import type { EventEnvelope } from '../events/envelope';
import type { OutboxObserver } from '../events/observer';
import { RelayLoop, type PassHint } from '../events/relay-loop';
import { HotTableVacuum } from './hot-vacuum';
import { checkOut, prepared, type Pool, type Queryable } from './pool';

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
 * Publishes outbox rows in the order they were appended and deletes them, a batch per
 * transaction. Events about one row come out in commit order, because a second writer waits for
 * the first one's commit before it appends; events of unrelated transactions come out in append
 * order. The rows are locked with SKIP LOCKED, so several replicas drain one outbox without
 * publishing a row at the same time (side by side, so across replicas there is no order); a
 * re-publish after a crash is dropped by JetStream's duplicate window (the event id is the
 * message id), and consumers are idempotent anyway. A pass with nothing pending costs one
 * index probe.
 */
export class PgOutboxRelay extends RelayLoop {
  constructor(
    private readonly pool: Pool,
    private readonly publisher: EventPublisher,
    logger: Logger,
    opts: {
      intervalMs?: number;
      batchSize?: number;
      /** Other tables of the service whose rows every write replaces (vacuumed with the outbox). */
      hotTables?: string[];
      /** When and past how many dead rows they are vacuumed (HotTableVacuum's defaults). */
      vacuum?: { intervalMs?: number; deadRows?: number };
    } = {},
  ) {
    super(logger, opts.intervalMs ?? 1000);
    this.batchSize = opts.batchSize ?? 100;
    // every relayed event leaves a dead outbox row behind
    this.vacuum = new HotTableVacuum(pool, ['outbox', ...(opts.hotTables ?? [])], logger, opts.vacuum);
  }

  private readonly batchSize: number;
  private readonly vacuum: HotTableVacuum;

  override start(observer?: OutboxObserver): void {
    super.start(observer);
    this.vacuum.start();
  }

  override async stop(): Promise<void> {
    await this.vacuum.stop();
    await super.stop();
  }

  /** Rows waiting, counted up to a bound (a backlog past it reads as the bound). */
  protected override async backlog(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      prepared('SELECT count(*)::int AS n FROM (SELECT 1 FROM outbox LIMIT 100000) pending', []),
    );
    return rows[0]?.n ?? 0;
  }

  protected async pass(hint: PassHint): Promise<void> {
    // A pass after this process's own write goes straight to the batch (its rows are there unless
    // another replica took them: then the batch is an empty transaction). Any other pass first
    // probes: the common case there, nothing pending, costs one statement and no transaction.
    if (!hint.written) {
      const pending = await this.pool.query(prepared('SELECT seq FROM outbox ORDER BY seq LIMIT 1', []));
      if (pending.rowCount === 0) return;
    }
    while (!this.stopped && (await this.batch()) === this.batchSize);
  }

  private async batch(): Promise<number> {
    const { client, release } = await checkOut(this.pool);
    let broken = false;
    try {
      // One round trip takes the batch: its rows are deleted (so locked) in the transaction and
      // come back; a failed publish rolls the deletion back. A simple query, so that BEGIN travels
      // with it (the batch size is this process's own integer, never input).
      // Its COMMIT does not wait for the WAL flush (synchronous_commit off, for this transaction
      // only): a deletion lost in a crash of PostgreSQL only publishes its events again, which
      // the duplicate window drops, and a commit that waited for the disk here was a second
      // flush per write beside the write's own (`bench/cpu-cost.mjs --ops create
      // --concurrency 2`: 2.1-2.4 WAL syncs per create before, 1.3-1.4 with this).
      const taken = (await client.query(
        `BEGIN; SET LOCAL synchronous_commit TO off; DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox ORDER BY seq LIMIT ${Math.trunc(
          this.batchSize,
        )} FOR UPDATE SKIP LOCKED) RETURNING seq, event`,
      )) as unknown as Array<{ rows: Array<{ seq: string; event: EventEnvelope }> }>;
      const rows = (taken[2]?.rows ?? []).sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
      // Published side by side: one connection sends them in this order and JetStream stores them
      // as they arrive, so the order holds while the batch waits for one round of acks, not one
      // per event. A batch that fails is rolled back and published again (the duplicate window
      // drops what had arrived).
      await Promise.all(rows.map((r) => this.publisher.publish(r.event)));
      await client.query('COMMIT');
      return rows.length;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw e;
    } finally {
      release(broken);
    }
  }
}
