import { performance } from 'node:perf_hooks';
import { MongoClient, type CommandFailedEvent, type CommandSucceededEvent, type Db } from 'mongodb';
import type { Logger } from '../logger';
import type { DependencyMetrics, DependencyOutcome } from '../dependency-metrics';
import { MongoMonitorWatchdog } from './monitor-watchdog';

/**
 * Durability and visibility for every MongoDB adapter of every service (none overrides them per
 * operation; test/unit/mongo-concerns.test.ts keeps it so). See ARCHITECTURE.md, "MongoDB write
 * and read concerns".
 */
export const MONGO_CONCERNS = {
  /** A write a client is told succeeded is on a majority of the replica set, journaled: it survives a failover. */
  writeConcern: { w: 'majority', journal: true },
  /** Reads see only majority-committed data: nothing a client is shown can be rolled back later. */
  readConcern: { level: 'majority' },
} as const;

const CONNECT_TIMEOUT_MS = 5000;
/**
 * A monitor's check is a connect and a handshake, each bounded by connectTimeoutMS: a heartbeat
 * outstanding three times that long is stuck (see MongoMonitorWatchdog).
 */
export const MONITOR_STUCK_AFTER_MS = 3 * CONNECT_TIMEOUT_MS;

const watchdogs = new WeakMap<MongoClient, MongoMonitorWatchdog>();

/**
 * One client per process. FerretDB and MongoDB both speak this; no transactions are used. A
 * watchdog reconnects it if the driver's server monitor gets stuck; close it with closeMongo.
 */
export async function connectMongo(
  url: string,
  appName: string,
  logger?: Pick<Logger, 'warn' | 'error' | 'info'>,
  /** Times every command (baas_dependency_request_duration_seconds), from the driver's command monitoring. */
  dependencies?: DependencyMetrics,
): Promise<MongoClient> {
  const client = new MongoClient(url, {
    appName,
    ...MONGO_CONCERNS,
    maxPoolSize: 50,
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    // Recover by itself after the database or the network between comes back: poll the server
    // every 2 s (FerretDB has no streaming hello), and never wait forever on a dead socket.
    serverMonitoringMode: 'poll',
    heartbeatFrequencyMS: 2000,
    socketTimeoutMS: 60_000,
    retryWrites: true,
    // Command events carry each command's name and duration. A reply's documents stay raw BSON
    // for the event (the driver reads cursor batches lazily): the cost is the envelope.
    monitorCommands: dependencies !== undefined,
  });
  if (dependencies) instrumentMongo(client, dependencies);
  await client.connect();
  watchdogs.set(
    client,
    new MongoMonitorWatchdog(client, { stuckAfterMs: MONITOR_STUCK_AFTER_MS, ...(logger ? { logger } : {}) }),
  );
  return client;
}

/** Stops the client's watchdog (so that it does not connect it again), then closes the client. */
export async function closeMongo(client: MongoClient): Promise<void> {
  watchdogs.get(client)?.stop();
  await client.close();
}

export function mongoReadiness(db: Db) {
  return { name: 'mongo', check: async () => void (await db.command({ ping: 1 })) };
}

export function isDuplicateKeyError(e: unknown): boolean {
  return (e as { code?: number } | null)?.code === 11000;
}

/**
 * An upsert by a unique key (`_id`), tried once more when it loses a race: two upserts of one
 * key at once may both try the insert, and the loser gets a duplicate key. MongoDB retries such
 * an upsert itself only in some cases, FerretDB never. The document exists by then, so the second
 * try updates it.
 */
export async function upsertRacing<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (!isDuplicateKeyError(e)) throw e;
    return write();
  }
}

/**
 * Server error codes that mean the server could not serve the command for reasons of its own
 * (a timeout, a shutdown or step-down, no primary): `failed`. Any other server error refuses the
 * command itself (a duplicate key, a bad value): `rejected`. Errors that are not the server's
 * (the network, the pool) are `failed`.
 */
const MONGO_FAILED_CODES = new Set([
  6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 202, 46, 112, 251,
]);

export function mongoOutcome(failure: unknown): DependencyOutcome {
  const e = failure as { name?: unknown; code?: unknown } | null;
  if (e?.name === 'MongoServerError' && typeof e.code === 'number')
    return MONGO_FAILED_CODES.has(e.code) ? 'failed' : 'rejected';
  return 'failed';
}

/**
 * A write command the server answered `ok: 1` may still have refused its writes (a duplicate key
 * is a write error in a successful reply, which the driver then throws): `rejected`; a write
 * concern it could not satisfy (no majority) is `failed`.
 */
export function writeOutcome(reply: unknown): DependencyOutcome {
  const r = reply as { writeErrors?: unknown; writeConcernError?: unknown } | null | undefined;
  if (r?.writeConcernError) return 'failed';
  if (Array.isArray(r?.writeErrors) && r.writeErrors.length > 0) return 'rejected';
  return 'ok';
}

function instrumentMongo(client: MongoClient, dm: DependencyMetrics): void {
  // events carry the duration; record() wants the start on the same clock
  const since = (durationMs: number) => performance.now() - durationMs;
  client.on('commandSucceeded', (e: CommandSucceededEvent) =>
    dm.record('mongodb', e.commandName, since(e.duration), writeOutcome(e.reply)),
  );
  client.on('commandFailed', (e: CommandFailedEvent) =>
    dm.record('mongodb', e.commandName, since(e.duration), mongoOutcome(e.failure)),
  );
}
