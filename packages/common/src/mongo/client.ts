import { MongoClient, type Db } from 'mongodb';
import type { Logger } from '../logger';
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
  });
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
