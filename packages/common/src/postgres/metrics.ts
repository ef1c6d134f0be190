import { performance } from 'node:perf_hooks';
import type { Pool, PoolClient } from 'pg';
import type { DependencyMetrics, DependencyOutcome } from '../dependency-metrics';

/** SQL verbs kept as the `operation` label; any other statement is `OTHER`. */
const SQL_OPERATIONS = new Set([
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'WITH',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'SET',
  'RESET',
  'SHOW',
  'LOCK',
  'CREATE',
  'ALTER',
  'DROP',
  'TRUNCATE',
  'ANALYZE',
  'VACUUM',
  'NOTIFY',
  'LISTEN',
  'UNLISTEN',
  'DO',
  'CALL',
  'COPY',
  'EXPLAIN',
  'DISCARD',
  'DEALLOCATE',
]);

/** Leading blanks and comments, then the first word. */
const FIRST_WORD = /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([A-Za-z]+)/;

/** The statement's verb (`SELECT`, `INSERT`, ...), the OpenTelemetry `db.operation.name`. */
export function sqlOperation(text: unknown): string {
  if (typeof text !== 'string') return 'OTHER';
  const word = FIRST_WORD.exec(text)?.[1]?.toUpperCase();
  return word !== undefined && SQL_OPERATIONS.has(word) ? word : 'OTHER';
}

/**
 * SQLSTATE classes where the server could not do the statement for reasons of its own: connection
 * (08), serialization failure or deadlock (40), insufficient resources (53), object in use or lock
 * not available (55), operator intervention, including a statement canceled by its timeout (57),
 * system (58) and internal errors (XX). Other classes refuse the statement itself (22 data, 23
 * constraint, 42 syntax or access): `rejected`.
 */
const FAILED_CLASSES = new Set(['08', '40', '53', '55', '57', '58', 'XX']);

export function postgresOutcome(err: unknown): DependencyOutcome {
  if (!err) return 'ok';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return FAILED_CLASSES.has(code.slice(0, 2)) ? 'failed' : 'rejected';
  // no SQLSTATE: the connection ended, the client timed out, the pool could not connect
  return 'failed';
}

type QueryCallback = (err: Error | null, res: unknown) => void;
type LooseQuery = (config: unknown, values?: unknown, callback?: unknown) => unknown;

const INSTRUMENTED = Symbol('baas.postgres.instrumented');

/**
 * Times every statement of the client: promise and callback calls (the pool's own `query` is a
 * callback call on a checked-out client). Submittables (cursors, streams) pass through untimed.
 */
export function instrumentPostgresClient(client: PoolClient, dm: DependencyMetrics): void {
  const c = client as PoolClient & { [INSTRUMENTED]?: true };
  if (c[INSTRUMENTED]) return;
  c[INSTRUMENTED] = true;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the client as `this`
  const query = client.query as unknown as LooseQuery;
  const instrumented = function (
    this: unknown,
    config: unknown,
    values?: unknown,
    callback?: unknown,
  ): unknown {
    const cfg = config as { submit?: unknown; callback?: unknown; text?: unknown } | null | undefined;
    // cursors and streams, and configs that carry their own callback, pass through untimed
    if (typeof cfg?.submit === 'function' || typeof cfg?.callback === 'function')
      return query.call(this, config, values, callback);
    const operation = sqlOperation(typeof config === 'string' ? config : cfg?.text);
    const start = performance.now();
    // query(config, callback) or query(config, values, callback): what the pool itself calls
    const done = typeof values === 'function' ? values : callback;
    if (typeof done === 'function')
      return query.call(
        this,
        config,
        typeof values === 'function' ? undefined : values,
        (err: Error | null, res: unknown) => {
          dm.record('postgresql', operation, start, postgresOutcome(err));
          (done as QueryCallback)(err, res);
        },
      );
    const result = query.call(this, config, values) as Promise<unknown>;
    result.then(
      () => dm.record('postgresql', operation, start, 'ok'),
      (e: unknown) => dm.record('postgresql', operation, start, postgresOutcome(e)),
    );
    return result;
  };
  (client as unknown as { query: unknown }).query = instrumented;
}

/** Every client the pool connects from now on is instrumented (before its first statement). */
export function instrumentPostgresPool(pool: Pool, dm: DependencyMetrics): void {
  pool.on('connect', (client) => instrumentPostgresClient(client, dm));
}
