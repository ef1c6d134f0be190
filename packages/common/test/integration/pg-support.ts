import path from 'node:path';
import { Client } from 'pg';
import { infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';

/** A service migrations directory with none: only the kernel's tables. */
export const NO_MIGRATIONS = path.join(__dirname, 'fixtures/no-migrations');
/** One service migration that reads the kernel's `outbox`. */
export const NEEDS_KERNEL = path.join(__dirname, 'fixtures/needs-kernel');

async function admin<T>(work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: infra.postgresAdminUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** An empty database, not migrated: for tests of the migrator itself. */
export async function bareDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  await requireInfra('postgres');
  const name = uniqueDbName(prefix).toLowerCase();
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const u = new URL(infra.postgresAdminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}

/** Runs one statement on the admin connection (to terminate a backend, for instance). */
export function adminQuery(sql: string, params: unknown[] = []): Promise<void> {
  return admin(async (c) => void (await c.query(sql, params)));
}

/** Resolves when `n` callers have arrived: makes two transactions interleave on purpose. */
export function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === n) open();
    return opened;
  };
}
