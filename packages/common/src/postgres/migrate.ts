import path from 'node:path';
import { Client } from 'pg';
import type { Logger } from '../logger';

/** The kernel's own tables (outbox, processed events), in every service database. */
export const KERNEL_MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/** Advisory-lock key of the migrators (advisory locks are per database; any constant works). */
const MIGRATION_LOCK = 4_242_011;

/**
 * Applies pending migrations: first the kernel's, then the service's own (plain SQL files in
 * `<service>/migrations`, each with `-- Up Migration` / `-- Down Migration`). Each set has its
 * own bookkeeping table. It runs at boot and as the one-shot migration Job, so replicas starting
 * together race here: node-pg-migrate's own lock is a try-lock (the loser fails its boot with
 * "Another migration is already running"), so the runs wait for a blocking advisory lock of
 * their own instead, and a replica that waited finds everything applied.
 */
export async function migratePostgres(url: string, serviceDir: string, logger: Logger): Promise<void> {
  const log = (msg: string) => logger.debug({ migration: true }, msg);
  // Our files are numbered `NNNN_name.sql`; node-pg-migrate orders them by that number but
  // reports each as an error for not being a timestamp, on every boot.
  const error = (msg: string) =>
    /^Can't determine timestamp for \d+$/.test(msg) ? log(msg) : logger.error(msg);
  const client = new Client({
    connectionString: url,
    application_name: 'migrate',
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', (err) => logger.warn({ err }, 'migration connection failed'));
  // Loaded here, not at the top: a service that does not migrate at boot (DB_MIGRATE_ON_BOOT=false,
  // the migrations run as a Job) never loads the migrator (about 1.5 MB of heap).
  const { runner } = await import('node-pg-migrate');
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    for (const [dir, table] of [
      [KERNEL_MIGRATIONS_DIR, 'kernel_migrations'],
      [serviceDir, 'service_migrations'],
    ] as const) {
      const applied = await runner({
        dbClient: client,
        noLock: true,
        dir,
        migrationsTable: table,
        direction: 'up',
        count: Infinity,
        checkOrder: true,
        logger: { debug: log, info: log, warn: log, error },
        verbose: false,
      });
      if (applied.length > 0)
        logger.info({ migrations: applied.map((m) => m.name), table }, 'migrations applied');
    }
  } finally {
    // Ending the session releases the lock, also when a migration failed halfway.
    await client.end().catch(() => undefined);
  }
}
