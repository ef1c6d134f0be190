import { unstorableTextError, type EventEnvelope } from '@baas/common';
import {
  appendOutbox,
  prepared,
  withTransaction,
  type Pool,
  type PoolClient,
  type Queryable,
} from '@baas/common/postgres';

/** Records events in the outbox of the transaction it was handed to. */
export type Emit = (events: EventEnvelope[]) => Promise<void>;

export interface Rows<R> {
  rows: R[];
  rowCount: number;
}

/**
 * Text the client sent that PostgreSQL cannot store (a NUL, an unpaired surrogate) is bad input
 * (400), mapped here where the statement ran so that use cases see the AppError, never a 500.
 */
function mapInputError(e: unknown): unknown {
  return unstorableTextError(e) ?? e;
}

/**
 * PostgreSQL refuses a prepared statement whose result columns changed under it ("cached plan
 * must not change result type": a `SELECT *` after a migration added a column, while this
 * replica still runs).
 */
function isStalePlan(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === '0A000';
}

/**
 * One statement, with the input errors above mapped to 400. Prepared (parsed and planned once
 * per connection, see `prepared`): the service's statements are fixed texts, and a login's two
 * cost PostgreSQL ~170 µs of CPU less each than parsed anew. A prepared statement a migration
 * made stale is sent again unprepared. Inside a transaction (a user read back after an update)
 * that second try would meet the aborted transaction; those reads name their columns, which a
 * migration that adds a column does not make stale.
 */
export async function run<R>(db: Queryable, sql: string, params: unknown[] = []): Promise<Rows<R>> {
  try {
    let r;
    try {
      r = await db.query(prepared(sql, params));
    } catch (e) {
      if (!isStalePlan(e)) throw e;
      r = await db.query(sql, params);
    }
    return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
  } catch (e) {
    throw mapInputError(e);
  }
}

/**
 * The auth tables on PostgreSQL: single statements, and transactions in which a change and the
 * events describing it are written together (`emit` appends them to the outbox). After a commit
 * that recorded events the outbox relay is kicked, so they usually go out at once; its periodic
 * pass catches anything a crash left behind.
 */
export class PgAuthDatabase {
  constructor(
    readonly pool: Pool,
    private readonly committedEvents: () => void = () => undefined,
  ) {}

  run<R>(sql: string, params: unknown[] = []): Promise<Rows<R>> {
    return run<R>(this.pool, sql, params);
  }

  async transaction<T>(work: (tx: PoolClient, emit: Emit) => Promise<T>): Promise<T> {
    let emitted = false;
    let result: T;
    try {
      result = await withTransaction(this.pool, (tx) => {
        emitted = false; // a retried transaction starts over
        return work(tx, async (events) => {
          await appendOutbox(tx, events);
          if (events.length > 0) emitted = true;
        });
      });
    } catch (e) {
      throw mapInputError(e);
    }
    if (emitted) this.committedEvents();
    return result;
  }
}
