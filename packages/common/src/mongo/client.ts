import { MongoClient, type Db } from 'mongodb';

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

/** One client per process. FerretDB and MongoDB both speak this; no transactions are used. */
export async function connectMongo(url: string, appName: string): Promise<MongoClient> {
  const client = new MongoClient(url, {
    appName,
    ...MONGO_CONCERNS,
    maxPoolSize: 50,
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    // Recover by itself after the database or the network between comes back: poll the server
    // every 2 s (FerretDB has no streaming hello), and never wait forever on a dead socket.
    serverMonitoringMode: 'poll',
    heartbeatFrequencyMS: 2000,
    socketTimeoutMS: 60_000,
    retryWrites: true,
  });
  await client.connect();
  return client;
}

export function mongoReadiness(db: Db) {
  return { name: 'mongo', check: async () => void (await db.command({ ping: 1 })) };
}

export function isDuplicateKeyError(e: unknown): boolean {
  return (e as { code?: number } | null)?.code === 11000;
}
