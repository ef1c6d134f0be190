import { randomBytes } from 'node:crypto';
import { createEvent, createLogger, type EventEnvelope, type ProjectId } from '@baas/common';
import { connectPostgres, type Pool } from '@baas/common/postgres';
import { requireInfra } from '../../../../test/support/infra';
import { freshPostgresDatabase, TEST_POOL_MAX, type TestDatabase } from '../../../../test/support/postgres';
import { PostgresFileRepository } from '../../src/adapters/postgres-file-repository';
import { PostgresQuotaLedger } from '../../src/adapters/postgres-quota-ledger';
import { MIGRATIONS_DIR } from '../../src/wiring';
import { newProjectId } from './harness';

// PostgreSQL-only guarantees, whatever TEST_STORE says: they are properties of the SQL adapters
// (row locks, conditional upserts, one transaction per change and its event), proven with two
// pools standing for two replicas of the service.
describe('storage on PostgreSQL', () => {
  let db: TestDatabase;
  let second: Pool;

  beforeAll(async () => {
    await requireInfra('postgres');
    db = await freshPostgresDatabase('storage_pg', MIGRATIONS_DIR);
    second = await connectPostgres(db.url, 'storage-replica-2', createLogger('t', 'silent'), {
      max: TEST_POOL_MAX,
    });
  });
  afterAll(async () => {
    await second?.end();
    await db?.drop();
  });

  const replicas = () => [db.pool, second].map((pool) => new PostgresFileRepository(pool));
  const name = () => randomBytes(16).toString('base64url');

  async function pending(projectId: ProjectId, files = new PostgresFileRepository(db.pool)) {
    const path = `${projectId}/${name()}.png`;
    await files.insertPending({
      path,
      projectId,
      status: 'pending',
      contentType: 'image/png',
      originalName: 'a.png',
      size: 0,
      reserved: 0,
      createdAt: new Date(),
    });
    return path;
  }

  async function completed(projectId: ProjectId) {
    const files = new PostgresFileRepository(db.pool);
    const path = await pending(projectId, files);
    await files.complete(projectId, path, 10, [uploaded(projectId, path)]);
    return path;
  }

  const uploaded = (projectId: ProjectId, path: string, contentType = 'image/png') =>
    createEvent('file.uploaded', projectId, { path, size: 10, contentType });
  const deleted = (projectId: ProjectId, path: string) =>
    createEvent('file.deleted', projectId, { path, size: 10 });

  async function outboxOf(projectId: ProjectId): Promise<EventEnvelope[]> {
    const { rows } = await db.pool.query<{ event: EventEnvelope }>(
      "SELECT event FROM outbox WHERE event->>'projectId' = $1 ORDER BY seq",
      [projectId],
    );
    return rows.map((r) => r.event);
  }

  async function statusOf(path: string): Promise<string | undefined> {
    const { rows } = await db.pool.query<{ status: string }>('SELECT status FROM files WHERE path = $1', [
      path,
    ]);
    return rows[0]?.status;
  }

  describe('quota shared by two replicas', () => {
    it('never exceeds the limit under parallel reservations and ends exactly at it', async () => {
      const pid = newProjectId();
      const ledgers = [new PostgresQuotaLedger(db.pool), new PostgresQuotaLedger(second)];
      const limit = 10_000;
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) => ledgers[i % 2]!.reserve(pid, 250, limit)),
      );
      expect(results.filter(Boolean)).toHaveLength(40);
      expect(await ledgers[1]!.used(pid)).toBe(limit);
      expect(await ledgers[0]!.reserve(pid, 1, limit)).toBe(false);
    });

    it('keeps the total within the limit with mixed sizes, releases and a racing first reservation', async () => {
      const pid = newProjectId();
      const ledgers = [new PostgresQuotaLedger(db.pool), new PostgresQuotaLedger(second)];
      const limit = 5_000;
      const sizes = Array.from({ length: 60 }, (_, i) => [70, 130, 400, 1][i % 4]!);
      const granted = await Promise.all(
        sizes.map(async (bytes, i) => ((await ledgers[i % 2]!.reserve(pid, bytes, limit)) ? bytes : 0)),
      );
      const total = granted.reduce((s, b) => s + b, 0);
      expect(total).toBeLessThanOrEqual(limit);
      expect(await ledgers[0]!.used(pid)).toBe(total);
      await Promise.all(granted.map((b, i) => ledgers[i % 2]!.release(pid, b)));
      expect(await ledgers[0]!.used(pid)).toBe(0);
    });

    it("never touches another project's usage", async () => {
      const a = newProjectId();
      const b = newProjectId();
      const ledger = new PostgresQuotaLedger(db.pool);
      expect(await ledger.reserve(b, 900, 1000)).toBe(true);
      expect(await ledger.reserve(a, 1000, 1000)).toBe(true);
      await ledger.release(a, 1000);
      await ledger.drop(a);
      expect(await ledger.used(b)).toBe(900);
    });
  });

  describe('outbox rows exist if and only if their change committed', () => {
    it('completes a pending upload once, with exactly one file.uploaded row', async () => {
      const pid = newProjectId();
      const [one, two] = replicas();
      const path = await pending(pid);
      const events = [uploaded(pid, path), uploaded(pid, path)];
      const results = await Promise.all([
        one!.complete(pid, path, 10, [events[0]!]),
        two!.complete(pid, path, 10, [events[1]!]),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = events[results.indexOf(true)]!;
      expect((await outboxOf(pid)).map((e) => e.id)).toEqual([winner.id]);
      expect(await one!.complete(pid, path, 10, [uploaded(pid, path)])).toBe(false);
      expect(await outboxOf(pid)).toHaveLength(1);
    });

    it('deletes a complete file once when two replicas race, with exactly one file.deleted row', async () => {
      const pid = newProjectId();
      const path = await completed(pid);
      await db.pool.query("DELETE FROM outbox WHERE event->>'projectId' = $1", [pid]);
      const [one, two] = replicas();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? one! : two!).deleteComplete(pid, path, [deleted(pid, path)]),
        ),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await outboxOf(pid)).toHaveLength(1);
      expect((await outboxOf(pid))[0]).toMatchObject({ type: 'file.deleted', data: { path, size: 10 } });
      expect(await statusOf(path)).toBeUndefined();
    });

    it('rolls the change back when its event cannot be written, leaving no row', async () => {
      const pid = newProjectId();
      const files = new PostgresFileRepository(db.pool);
      // jsonb refuses U+0000, so the outbox insert fails after the UPDATE/DELETE succeeded.
      const poisoned = (path: string) => uploaded(pid, path, 'image/png\u0000');
      const path = await pending(pid);
      await expect(files.complete(pid, path, 10, [poisoned(path)])).rejects.toMatchObject({ code: '22P05' });
      expect(await statusOf(path)).toBe('pending');
      expect(await outboxOf(pid)).toEqual([]);

      const done = await completed(pid);
      await db.pool.query("DELETE FROM outbox WHERE event->>'projectId' = $1", [pid]);
      await expect(files.deleteComplete(pid, done, [poisoned(done)])).rejects.toMatchObject({
        code: '22P05',
      });
      expect(await statusOf(done)).toBe('complete');
      expect(await outboxOf(pid)).toEqual([]);
    });
  });

  describe('tenancy', () => {
    it("neither sees nor changes nor deletes another project's file record", async () => {
      const a = newProjectId();
      const b = newProjectId();
      const files = new PostgresFileRepository(db.pool);
      const ofB = await completed(b);
      const pendingOfB = await pending(b);
      await db.pool.query("DELETE FROM outbox WHERE event->>'projectId' = $1", [b]);

      expect(await files.findComplete(a, ofB)).toBeNull();
      expect(await files.exists(a, ofB)).toBe(false);
      expect(await files.deleteComplete(a, ofB, [deleted(a, ofB)])).toBeNull();
      expect(await files.complete(a, pendingOfB, 99, [uploaded(a, pendingOfB)])).toBe(false);
      await files.addReserved(a, pendingOfB, 1000);
      await files.markVerified(a, ofB, new Date());
      await files.remove(a, ofB);
      expect(await files.deleteAllOfProject(a)).toBe(0);

      expect(await outboxOf(a)).toEqual([]);
      expect(await files.findComplete(b, ofB)).toMatchObject({ path: ofB, size: 10, projectId: b });
      const { rows } = await db.pool.query(
        'SELECT path, status, reserved::int, verified_at FROM files WHERE project_id = $1',
        [b],
      );
      expect(rows).toHaveLength(2);
      expect(rows).toEqual(
        expect.arrayContaining([
          { path: ofB, status: 'complete', reserved: 0, verified_at: null },
          { path: pendingOfB, status: 'pending', reserved: 0, verified_at: null },
        ]),
      );
    });
  });
});
