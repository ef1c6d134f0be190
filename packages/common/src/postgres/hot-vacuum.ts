import type { Logger } from '../logger';
import { checkOut, type Pool } from './pool';

/** How often the dead rows of the hot tables are looked at. */
export const HOT_VACUUM_INTERVAL_MS = 10_000;
/** A hot table with at least this many dead rows is vacuumed. */
export const HOT_VACUUM_DEAD_ROWS = 5_000;

/**
 * Vacuums small tables whose rows are deleted or replaced on every write (a service's outbox,
 * the data service's index counts) as soon as they hold a few thousand dead rows, instead of
 * waiting for autovacuum. Autovacuum visits a database at most once per `autovacuum_naptime` (a
 * minute by default) and not at all where it is turned off; meanwhile every write leaves a dead
 * row that the next reads of these few live rows step over: measured on creates with autovacuum
 * off, the outbox held 114,621 dead rows for 1,776 live ones and the index counts 93,222 for 212,
 * and creates slowed from 1,617/s to 976/s in three rounds of six seconds (docs/operations.md).
 *
 * One statistics read per interval (`pg_stat_user_tables`, no table is touched); `VACUUM
 * (SKIP_LOCKED)` skips a table another replica or autovacuum is vacuuming at that moment, so
 * replicas need no coordination. VACUUM needs the table's owner (the service's role owns its
 * tables); if it is refused, the warning is logged once and the loop stops.
 */
export class HotTableVacuum {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly tables: readonly string[],
    private readonly logger: Logger,
    private readonly opts: { intervalMs?: number; deadRows?: number } = {},
  ) {
    for (const t of tables)
      if (!/^[a-z_][a-z0-9_]*$/.test(t)) throw new Error(`hot table ${t}: a plain lower-case name`);
  }

  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running)
        this.running = this.pass()
          .then(
            () => undefined,
            (err: unknown) => this.logger.warn({ err }, 'vacuum of hot tables failed'),
          )
          .finally(() => {
            this.running = undefined;
          });
    }, this.opts.intervalMs ?? HOT_VACUUM_INTERVAL_MS);
    this.timer.unref();
  }

  /** Vacuums the hot tables past the threshold; returns their names (for tests). */
  async pass(): Promise<string[]> {
    const { rows } = await this.pool.query<{ relname: string }>(
      `SELECT relname FROM pg_stat_user_tables
       WHERE schemaname = current_schema() AND relname = ANY ($1::text[]) AND n_dead_tup >= $2`,
      [this.tables, this.opts.deadRows ?? HOT_VACUUM_DEAD_ROWS],
    );
    const due = rows.map((r) => r.relname);
    if (due.length === 0) return [];
    // checked out with an error listener: a connection lost meanwhile fails the statement
    // instead of killing the process, and the client is destroyed on release
    const { client, release } = await checkOut(this.pool);
    const refused: string[] = [];
    // A table skipped because it is being vacuumed says "lock not available"; one this role may
    // not vacuum says so with "owner" (PostgreSQL 15) or "permission denied" (16 and later).
    const onNotice = (n: { severity?: string; message?: string }) => {
      if (n.severity === 'WARNING' && n.message && /owner|permission/i.test(n.message))
        refused.push(n.message);
    };
    client.on('notice', onNotice);
    try {
      // not inside a transaction: VACUUM refuses to run in one
      await client.query(`VACUUM (SKIP_LOCKED) ${due.map((t) => `"${t}"`).join(', ')}`);
    } finally {
      client.off('notice', onNotice);
      release();
    }
    if (refused.length) {
      this.logger.warn(
        { tables: due, warnings: refused },
        'hot tables cannot be vacuumed by this role: left to autovacuum',
      );
      this.stopped = true;
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
    }
    return due;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.running) await this.running;
  }
}
