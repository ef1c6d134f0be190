import { Client } from 'pg';
import { createLogger } from '@baas/common';
import { connectPostgres, migratePostgres, type Pool } from '@baas/common/postgres';
import { infra, requireInfra, uniqueDbName } from './infra';

export interface TestDatabase {
  /** URL of the new database (the admin role's credentials). */
  url: string;
  name: string;
  pool: Pool;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

function withDatabase(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: infra.postgresAdminUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/**
 * The most connections a test's own pool opens. The machine's PostgreSQL serves the stack's
 * services at the same time (pools of up to 20 each, idle connections kept ten minutes) within
 * its max_connections (100 by default): a suite that raced two pools of 20 against each other
 * once found the server full ("too many clients already").
 */
export const TEST_POOL_MAX = 8;

/**
 * A PostgreSQL database of the suite's own, migrated with the kernel's and the service's
 * migrations: suites never share state, and the migrations themselves are under test. Its pool
 * opens at most TEST_POOL_MAX connections.
 */
export async function freshPostgresDatabase(prefix: string, migrationsDir: string): Promise<TestDatabase> {
  await requireInfra('postgres');
  const name = uniqueDbName(prefix).toLowerCase();
  // As the stack creates them: binary string order, as MongoDB orders strings.
  await admin((c) =>
    c
      .query(
        `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`,
      )
      .catch(() =>
        c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`),
      ),
  );
  const url = withDatabase(infra.postgresAdminUrl, name);
  const logger = createLogger(`${prefix}-migrate`, 'silent');
  await migratePostgres(url, migrationsDir, logger);
  const pool = await connectPostgres(url, prefix, logger, { max: TEST_POOL_MAX });
  return {
    url,
    name,
    pool,
    drop: async () => {
      await pool.end();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
