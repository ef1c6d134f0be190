import { Client } from 'pg';
import { MongoClient, ObjectId } from 'mongodb';
import type { EventType } from '@baas/common';
import { infra, uniqueDbName } from './infra';

/**
 * The database a fault test gives the one service process it starts, on the store TEST_STORE
 * names (PostgreSQL by default): on the shared server, or on a server the test runs itself.
 * The test reads what the service stored directly, never through the proxy it cuts.
 */
export interface FaultDatabase {
  kind: 'postgres' | 'mongodb';
  /** Where the database server listens: what a proxy forwards to. */
  host: string;
  port: number;
  /** The service's DATABASE_URL: straight to the server, or through a proxy on `viaPort`. */
  url(viaPort?: number): string;
  /** Events about the project of one type still waiting in the outbox (not yet published). */
  pendingEvents(projectId: string, type: EventType): Promise<number>;
  /** Ids of the documents the data service stored in one collection of a project. */
  documentIds(projectId: string, collection: string): Promise<Set<string>>;
  /** Drops the database (PostgreSQL) and closes the test's own connection. */
  close(): Promise<void>;
}

export interface DatabaseServer {
  /** A URL of the server with the rights to create a database. */
  adminUrl: string;
}

/** The shared server of the store TEST_STORE names. */
export function sharedServer(): DatabaseServer {
  return { adminUrl: infra.store === 'postgres' ? infra.postgresAdminUrl : infra.mongoUrl };
}

function withHostPortDb(url: string, port: number | undefined, database: string): string {
  const u = new URL(url);
  if (port !== undefined) {
    u.hostname = '127.0.0.1';
    u.port = String(port);
  }
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A new, empty database of the test's own; the service migrates it when it boots, as it does
 * on a fresh deployment.
 */
export async function faultDatabase(prefix: string, server = sharedServer()): Promise<FaultDatabase> {
  const name = uniqueDbName(prefix).toLowerCase();
  const u = new URL(server.adminUrl);
  const [host, port] = [u.hostname, Number(u.port || (infra.store === 'postgres' ? 5432 : 27017))];
  const url = (viaPort?: number) => withHostPortDb(server.adminUrl, viaPort, name);
  return infra.store === 'postgres'
    ? postgresDatabase(server.adminUrl, name, host, port, url)
    : mongoDatabase(server.adminUrl, name, host, port, url);
}

async function postgresDatabase(
  adminUrl: string,
  name: string,
  host: string,
  port: number,
  url: (viaPort?: number) => string,
): Promise<FaultDatabase> {
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  // A client per read: the test's server may restart between reads.
  const read = async <T>(sql: string, params: unknown[]): Promise<T[]> => {
    const c = new Client({ connectionString: url() });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end();
    }
  };
  return {
    kind: 'postgres',
    host,
    port,
    url,
    pendingEvents: async (projectId, type) =>
      Number(
        (
          await read<{ n: string }>(
            "SELECT count(*) AS n FROM outbox WHERE event->>'projectId' = $1 AND event->>'type' = $2",
            [projectId, type],
          )
        )[0]?.n,
      ),
    documentIds: async (projectId, collection) =>
      new Set(
        (
          await read<{ id: string }>('SELECT id FROM documents WHERE project_id = $1 AND collection = $2', [
            projectId,
            collection,
          ])
        ).map((r) => r.id),
      ),
    close: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined),
  };
}

async function mongoDatabase(
  adminUrl: string,
  name: string,
  host: string,
  port: number,
  url: (viaPort?: number) => string,
): Promise<FaultDatabase> {
  const client = await MongoClient.connect(adminUrl);
  return {
    kind: 'mongodb',
    host,
    port,
    url,
    // Auth keeps a project's pending events in the project's own document.
    pendingEvents: async (projectId, type) => {
      const doc = await client
        .db(name)
        .collection('projects')
        .findOne({ _id: new ObjectId(projectId) });
      const outbox = (doc?._outbox ?? []) as Array<{ type: string }>;
      return outbox.filter((e) => e.type === type).length;
    },
    // The data service keeps each project's documents in a database of their own.
    documentIds: async (projectId, collection) =>
      new Set(
        (
          await client
            .db(`${name}_p_${projectId}`)
            .collection(collection)
            .find({}, { projection: { _id: 1 } })
            .toArray()
        ).map((d) => String(d._id)),
      ),
    close: () => client.close(),
  };
}
