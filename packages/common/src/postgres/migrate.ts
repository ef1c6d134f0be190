import path from 'node:path';
import { runner } from 'node-pg-migrate';
import type { Logger } from '../logger';

/** The kernel's own tables (outbox, processed events), in every service database. */
export const KERNEL_MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * Applies pending migrations: first the kernel's, then the service's own (plain SQL files in
 * `<service>/migrations`, each with `-- Up Migration` / `-- Down Migration`). Each set has its
 * own bookkeeping table. node-pg-migrate takes an advisory lock, so replicas starting together
 * apply each migration once; it runs at boot and as the one-shot migration Job.
 */
export async function migratePostgres(url: string, serviceDir: string, logger: Logger): Promise<void> {
  const log = (msg: string) => logger.debug({ migration: true }, msg);
  for (const [dir, table] of [
    [KERNEL_MIGRATIONS_DIR, 'kernel_migrations'],
    [serviceDir, 'service_migrations'],
  ] as const) {
    const applied = await runner({
      databaseUrl: url,
      dir,
      migrationsTable: table,
      direction: 'up',
      count: Infinity,
      checkOrder: true,
      logger: { debug: log, info: log, warn: log, error: (m: string) => logger.error(m) },
      verbose: false,
    });
    if (applied.length > 0)
      logger.info({ migrations: applied.map((m) => m.name), table }, 'migrations applied');
  }
}
