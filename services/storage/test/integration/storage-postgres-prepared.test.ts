import { createEvent, createLogger } from '@baas/common';
import { connectPostgres, type Pool } from '@baas/common/postgres';
import { requireInfra } from '../../../../test/support/infra';
import { freshPostgresDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { PostgresFileRepository } from '../../src/adapters/postgres-file-repository';
import { PostgresQuotaLedger } from '../../src/adapters/postgres-quota-ledger';
import { MIGRATIONS_DIR } from '../../src/wiring';
import { newProjectId } from './harness';

/**
 * The statements of an upload and of a download are prepared: parsed and planned once per
 * connection, not on every request. One connection, so the session whose prepared statements are
 * listed is the one that ran them. Always on PostgreSQL, whatever TEST_STORE says.
 */
describe('storage statements on PostgreSQL', () => {
  let db: TestDatabase;
  let pool: Pool;
  let files: PostgresFileRepository;
  let quota: PostgresQuotaLedger;

  beforeAll(async () => {
    await requireInfra('postgres');
    db = await freshPostgresDatabase('storage_pg_prepared', MIGRATIONS_DIR);
    pool = await connectPostgres(db.url, 'storage-pg-prepared-it', createLogger('t', 'silent'), { max: 1 });
    files = new PostgresFileRepository(pool);
    quota = new PostgresQuotaLedger(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const prepared = async () =>
    (await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) =>
      r.statement.replace(/\s+/g, ' ').trim(),
    );

  /** What the upload use case runs for one file of `size` bytes, then a download's lookup. */
  async function uploadAndRead(size: number) {
    const projectId = newProjectId();
    const path = `${projectId}/f${size}.bin`;
    await files.insertPending({
      path,
      projectId,
      status: 'pending',
      contentType: 'application/octet-stream',
      originalName: 'f.bin',
      size: 0,
      reserved: 0,
      createdAt: new Date(),
    });
    expect(await quota.reserve(projectId, 1024, 1_000_000)).toBe(true);
    await files.addReserved(projectId, path, 1024);
    const event = createEvent('file.uploaded', projectId, {
      path,
      size,
      contentType: 'application/octet-stream',
    });
    expect(await files.complete(projectId, path, size, [event])).toBe(true);
    await quota.release(projectId, 1024 - size);
    expect((await files.findComplete(projectId, path))?.size).toBe(size);
  }

  it("prepares an upload's and a download's statements once and reuses them", async () => {
    await uploadAndRead(10);
    const first = await prepared();
    for (const text of [
      'INSERT INTO files (project_id, path, status',
      'INSERT INTO storage_usage AS u',
      'UPDATE files SET reserved = reserved + $3',
      "UPDATE files SET status = 'complete'",
      'UPDATE storage_usage SET used = GREATEST(used - $2, 0)',
      'SELECT project_id, path, status',
    ])
      expect(first.filter((s) => s.startsWith(text))).toHaveLength(1);

    // another file, other values: the same statements, nothing new prepared
    await uploadAndRead(20);
    expect((await prepared()).sort()).toEqual(first.sort());
  });

  it('a column a later migration adds does not make the prepared download lookup stale', async () => {
    await uploadAndRead(30);
    await pool.query('ALTER TABLE files ADD COLUMN added_by_a_later_version text');
    try {
      await uploadAndRead(40);
    } finally {
      await pool.query('ALTER TABLE files DROP COLUMN added_by_a_later_version');
    }
  });
});
