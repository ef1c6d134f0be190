/**
 * One-shot migrations of a service's database, for deployments that do not migrate at boot
 * (DB_MIGRATE_ON_BOOT=false; the migration Job of deploy/k8s):
 *
 *   node packages/common/dist/postgres/migrate-cli.js <service>           apply what is pending
 *   node packages/common/dist/postgres/migrate-cli.js <service> --check   exit 0 when nothing is
 *                                                                          pending, 3 otherwise
 *
 * Reads DATABASE_URL (or DATABASE_URL_FILE), the service's own database as its own role. Applies
 * the kernel's migrations, then services/<service>/migrations (migratePostgres). On a mongodb://
 * URL there is nothing to migrate: collections and indexes are created at boot. Exit codes: 0 done,
 * 1 failed, 2 bad usage or configuration, 3 pending (--check).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Client } from 'pg';
import { ConfigError, env, loadConfig } from '../config';
import { createLogger, type Logger } from '../logger';
import { databaseUrlSchema } from '../store';
import { KERNEL_MIGRATIONS_DIR, migratePostgres } from './migrate';

/** The repository (or image) root: this file is packages/common/{src,dist}/postgres/. */
const ROOT = path.resolve(__dirname, '../../../..');

const USAGE = 'usage: migrate-cli <service> [--check]   (DATABASE_URL names the service database)';

export function serviceMigrationsDir(service: string, root = ROOT): string {
  return path.join(root, 'services', service, 'migrations');
}

/** Migration names (file names without extension) as node-pg-migrate records them. */
function migrationNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((f) => (f.isFile() || f.isSymbolicLink()) && !f.name.startsWith('.'))
    .map((f) => path.parse(f.name).name)
    .sort();
}

/** Migrations of both sets that the database has not recorded as applied. */
export async function pendingMigrations(url: string, serviceDir: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const pending: string[] = [];
    for (const [dir, table] of [
      [KERNEL_MIGRATIONS_DIR, 'kernel_migrations'],
      [serviceDir, 'service_migrations'],
    ] as const) {
      const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
      const applied = new Set<string>();
      if (exists.rows[0]?.t) {
        const rows = await client.query<{ name: string }>(`SELECT name FROM ${table}`);
        for (const r of rows.rows) applied.add(r.name);
      }
      pending.push(...migrationNames(dir).filter((n) => !applied.has(n)));
    }
    return pending;
  } finally {
    await client.end();
  }
}

/** Runs the CLI; returns the exit code. `root` holds services/<service>/migrations. */
export async function main(
  argv: string[],
  logger: Logger = createLogger('migrate', 'info'),
  root = ROOT,
): Promise<number> {
  const args = argv.filter((a) => a !== '--check');
  const check = argv.includes('--check');
  const service = args[0];
  if (args.length !== 1 || !service || !/^[a-z][a-z0-9-]*$/.test(service)) {
    logger.error(USAGE);
    return 2;
  }
  const dir = serviceMigrationsDir(service, root);
  if (!existsSync(dir)) {
    logger.error({ dir }, `no migrations for service "${service}" (${USAGE})`);
    return 2;
  }
  let location;
  try {
    location = loadConfig(z.object({ DATABASE_URL: databaseUrlSchema })).DATABASE_URL;
  } catch (e) {
    logger.error(e instanceof ConfigError ? e.message : String(e));
    return 2;
  }
  if (location.kind === 'mongodb') {
    logger.info(`${service}: DATABASE_URL is MongoDB, nothing to migrate (indexes are created at boot)`);
    return 0;
  }
  try {
    if (check) {
      const pending = await pendingMigrations(location.url, dir);
      if (pending.length > 0) {
        logger.info({ pending }, `${service}: migrations pending`);
        return 3;
      }
      logger.info({ database: location.database }, `${service}: migrations up to date`);
      return 0;
    }
    await migratePostgres(location.url, dir, logger);
    logger.info({ database: location.database }, `${service}: migrations up to date`);
    return 0;
  } catch (e) {
    logger.error({ database: location.database }, `${service}: migration failed: ${(e as Error).message}`);
    return 1;
  }
}

if (require.main === module) {
  const level = env.logLevel().safeParse(process.env.LOG_LEVEL || undefined);
  main(process.argv.slice(2), createLogger('migrate', level.success ? level.data : 'info')).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
