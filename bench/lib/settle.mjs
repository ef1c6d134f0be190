// VACUUM ANALYZE, then a CHECKPOINT, on the PostgreSQL databases (ours, Parse's): what autovacuum
// and the checkpointer would do shortly after a bulk of writes, done before a measurement so that
// they do not run during it. bench/run.mjs settles after seeding, and before each group's
// fixed-rate runs (after the group's throughput runs, whose creates write tens of thousands of
// rows in a minute). What is settled is decided apart from doing it (settlePlan) so that the
// decision can be checked without a database.
import { analyze, withDataDb } from './store-seed.mjs';
import { workspaceModule } from './workspace-module.mjs';

const pg = workspaceModule('packages/common', 'pg');

/**
 * The steps of a settle, in order: [{ database: 'parse' | 'ours', checkpoint }]. Both databases
 * are on one server (POSTGRES_ADMIN_URL) and a CHECKPOINT covers the whole server, so Parse's is
 * vacuumed first and one CHECKPOINT follows: ours' `analyze`, or Parse's own when ours is not on
 * PostgreSQL here (--store mongodb, or --peers-only). Nothing when neither is.
 */
export function settlePlan({ store, peersOnly, parse }) {
  const oursOnPostgres = store === 'postgres' && !peersOnly;
  const steps = [];
  if (parse) steps.push({ database: 'parse', checkpoint: !oursOnPostgres });
  // store-seed's `analyze` ends in a CHECKPOINT of its own
  if (oursOnPostgres) steps.push({ database: 'ours', checkpoint: true });
  return steps;
}

async function vacuumParse(adminUrl, database, { checkpoint }) {
  const c = new pg.Client({ connectionString: new URL(`/${database}`, adminUrl).toString() });
  await c.connect();
  try {
    await c.query('VACUUM (ANALYZE)');
    if (checkpoint) await c.query('CHECKPOINT');
  } finally {
    await c.end();
  }
}

/**
 * Carries out settlePlan's steps: Parse's database (`parseDatabase`) on the server at `adminUrl`,
 * ours through the data service's database of `env` (store-seed's withDataDb).
 */
export async function settle(steps, { env, adminUrl, parseDatabase }) {
  for (const step of steps) {
    if (step.database === 'parse') await vacuumParse(adminUrl, parseDatabase, step);
    else if (step.database === 'ours') {
      // `analyze` cannot leave its CHECKPOINT out: a plan that asks it to would checkpoint twice
      if (!step.checkpoint) throw new Error("settle: ours' analyze always checkpoints");
      await withDataDb(env, analyze);
    } else throw new Error(`settle: unknown database ${step.database}`);
  }
}
