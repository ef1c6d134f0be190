import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool, types, type PoolClient, type PoolConfig, type QueryConfig } from 'pg';
import type { Logger } from '../logger';
import { keepIsoText } from '../iso-text';
import type { ReadinessCheck } from '../http/bootstrap';
import type { DependencyMetrics } from '../dependency-metrics';
import { instrumentPostgresPool } from './metrics';

export type { Pool, PoolClient } from 'pg';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamptzText = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number;

/** `.345`, `.34`, `.3` or nothing after the seconds, as `toISOString` writes it (three digits). */
const FRACTION = ['.000', '', '00', '0', ''];

/**
 * timestamptz as the server writes it in UTC with at most milliseconds (`2026-11-26 10:09:30.345+00`,
 * what every timestamp the services write looks like when the session's TimeZone is UTC), read
 * by V8's ISO parser from the ISO text `toISOString` would write (`2026-11-26T10:09:30.345Z`),
 * which the Date keeps for `isoText` (../iso-text.ts): ~0.6 us to read and write out instead of
 * ~1.5 (node-postgres' own parser: ~1.4 to read alone). Anything else (another zone,
 * microseconds, BC, infinity, a year past 9999) goes to node-postgres' own parser.
 */
export function parseTimestamptz(text: string): Date | number {
  const n = text.length;
  if (n >= 22 && n <= 26 && n !== 23 && text.charCodeAt(10) === 32 && text.endsWith('+00')) {
    // 22: no fraction; 24-26: one to three digits after the point (23 would be a bare point)
    const time = text.slice(11, n - 3);
    const iso = `${text.slice(0, 10)}T${time}${FRACTION[n - 22]}Z`;
    const t = Date.parse(iso);
    if (!Number.isNaN(t)) return keepIsoText(t, iso);
  }
  return parseTimestamptzText(text);
}

const builtIn = types.getTypeParser.bind(types) as (oid: number, format: 'text' | 'binary') => unknown;
const poolTypes = {
  getTypeParser: ((oid: number, format: 'text' | 'binary' = 'text') =>
    oid === TIMESTAMPTZ_OID && format === 'text'
      ? parseTimestamptz
      : builtIn(oid, format)) as typeof types.getTypeParser,
};

/**
 * How long a connection may sit idle in a pool before it is closed: ten minutes, as PgBouncer's
 * server_idle_timeout and HikariCP's idleTimeout. node-postgres' pools hand out the connection
 * released last, so under steady load the ones at the bottom sit idle; closed after 30 s (as they
 * were), the next burst opened them again all at once, each paying a backend's start and its first
 * plans, and that stall made the next burst: under a steady 540 reads/s the data service opened
 * 3-11 connections every 30 s, each time with requests stuck for 60-460 ms (docs/operations.md).
 */
export const IDLE_CONNECTION_MS = 600_000;

/**
 * One pool per process. Connections time out instead of waiting forever, so a database that is
 * down or saturated surfaces as a 503 (see the error handler), never as a hung request.
 */
export function createPostgresPool(
  url: string,
  appName: string,
  logger: Logger,
  overrides: Partial<PoolConfig> = {},
  /** Times every statement (baas_dependency_request_duration_seconds). */
  dependencies?: DependencyMetrics,
): Pool {
  // Guards every statement; user-driven queries set a tighter one themselves.
  const statementTimeout = overrides.statement_timeout ?? 30_000;
  const pool = new Pool({
    connectionString: url,
    application_name: appName,
    max: 20,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    statement_timeout: statementTimeout,
    // The server cancels a slow statement itself (a 504). This client-side limit fires only when
    // the server cannot answer at all, as in a partition that drops packets: without it the
    // request would hang until TCP gives up, minutes later.
    query_timeout: statementTimeout ? statementTimeout + QUERY_TIMEOUT_MARGIN_MS : undefined,
    // Finds connections that died silently while they sat idle in the pool.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    lock_timeout: 10_000,
    idle_in_transaction_session_timeout: 60_000,
    types: poolTypes,
    ...overrides,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => logger.warn({ err }, 'idle PostgreSQL connection failed'));
  if (dependencies) instrumentPostgresPool(pool, dependencies);
  return pool;
}

/** How long past its statement_timeout a statement may go unanswered before the client gives up. */
const QUERY_TIMEOUT_MARGIN_MS = 5000;

/** node-postgres' error for a statement the server never answered (see `query_timeout`). */
function isUnanswered(e: unknown): boolean {
  return e instanceof Error && e.message === 'Query read timeout';
}

/** Connects and proves the server answers (a boot-time failure names the database). */
export async function connectPostgres(
  url: string,
  appName: string,
  logger: Logger,
  overrides: Partial<PoolConfig> = {},
  dependencies?: DependencyMetrics,
): Promise<Pool> {
  const pool = createPostgresPool(url, appName, logger, overrides, dependencies);
  try {
    await pool.query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new Error(`PostgreSQL at ${redactUrl(url)} is not reachable: ${(e as Error).message}`);
  }
  return pool;
}

export function postgresReadiness(pool: Pool): ReadinessCheck {
  return { name: 'postgres', check: async () => void (await pool.query('SELECT 1')) };
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:[redacted]@');
}

export type Queryable = Pick<PoolClient, 'query'>;

export interface CheckedOutClient {
  client: PoolClient;
  /** Why the connection broke while the client was out, if it did. */
  lostWith: () => Error | undefined;
  /** Returns the client to the pool, or destroys it when its connection is (or may be) broken. */
  release: (broken?: boolean) => void;
}

/**
 * Checks a client out for more than one statement. The pool listens for errors only on idle
 * clients: a checked-out client whose connection dies between statements (a restart, a
 * partition, an idle-in-transaction timeout) emits 'error' with nobody listening, which kills
 * the process. Here a listener is attached while the client is out; the next statement fails
 * instead, and the client is destroyed on release.
 */
export async function checkOut(pool: Pool): Promise<CheckedOutClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost ??= err;
  };
  client.on('error', onError);
  return {
    client,
    lostWith: () => lost,
    release: (broken = false) => {
      client.removeListener('error', onError);
      client.release(broken || lost ? true : undefined);
    },
  };
}

/**
 * Runs `work` in one transaction on one connection. Serialization failures and deadlocks
 * (which PostgreSQL resolves by aborting one side) are retried a few times.
 */
export async function withTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  opts: { isolation?: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE'; attempts?: number } = {},
): Promise<T> {
  const attempts = opts.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    // Only a serialization failure or a deadlock comes back here. A retry that starts at once can
    // meet the transaction it lost to still committing, and lose again (seen in CI on a loaded
    // machine: all three attempts of one side of a write skew); so it waits a few milliseconds,
    // random so that two losers do not meet again, longer after each loss.
    if (attempt > 1) await sleep((attempt - 1) * (5 + Math.random() * 10));
    const { client, lostWith, release } = await checkOut(pool);
    let broken = false;
    try {
      await client.query(opts.isolation ? `BEGIN ISOLATION LEVEL ${opts.isolation}` : 'BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      // An unanswered statement still occupies the connection: a ROLLBACK would wait behind it.
      if (isUnanswered(e)) broken = true;
      else
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      // A statement on a lost connection fails with "not queryable"; the cause says why, and
      // is what the error handler recognises as a 503.
      const cause = lostWith() ?? e;
      const code = (cause as { code?: string }).code;
      if ((code === '40001' || code === '40P01') && attempt < attempts) continue;
      throw cause;
    } finally {
      release(broken);
    }
  }
}

export function isUniqueViolation(e: unknown): boolean {
  return (e as { code?: string } | null)?.code === '23505';
}

/**
 * How many distinct statement texts a process prepares (named statements, parsed once per
 * connection). The hot statements of a service are a handful of fixed texts; user-shaped queries
 * (filters) add one text per shape, so the first ones are prepared and the rest stay unnamed.
 */
const MAX_PREPARED_TEXTS = 100;
const preparedNames = new Map<string, string>();

/**
 * A query whose text PostgreSQL parses (and, once it has seen it a few times, plans) once per
 * connection instead of on every execution: for an index probe, parsing and planning cost several
 * times the execution. Needs session-level connections (direct, or PgBouncer in session mode or
 * with `max_prepared_statements`).
 */
export function prepared(text: string, values: unknown[]): QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED_TEXTS) {
    name = `baas_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
