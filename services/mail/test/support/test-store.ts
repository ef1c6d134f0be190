import type { ProjectId, ServiceStore } from '@baas/common';
import { infra, uniqueDbName } from '../../../../test/support/infra';
import { freshPostgresDatabase } from '../../../../test/support/postgres';
import { MIGRATIONS_DIR } from '../../src/wiring';

/** A message record as stored. */
export interface StoredMessage {
  id: string;
  projectId: string | null;
  to: string;
  status: string;
  system: boolean;
  attempts?: number;
  templateKey?: string;
  causedBy?: string;
}

/** The tests' window on the database, the same questions answered on either store. */
export interface StoredState {
  /** The project's message records (null: the platform's, of no project), oldest first. */
  messages(projectId: ProjectId | null): Promise<StoredMessage[]>;
  /** Whether events of this message still wait in the outbox. */
  eventPending(messageId: string): Promise<boolean>;
  /** Units of use the project holds, in one bucket or in all. */
  usage(projectId: ProjectId, bucket?: string): Promise<number>;
  /** The buckets the project has usage records in. */
  usageBuckets(projectId: ProjectId): Promise<string[]>;
  /** Records one unit of use taken at `at` (for retention tests). */
  insertUsage(projectId: ProjectId, bucket: string, at: Date): Promise<void>;
  templateCount(projectId: ProjectId): Promise<number>;
}

export interface TestStore {
  store: ServiceStore;
  stored: StoredState;
  drop(): Promise<void>;
}

const defined = <T extends object>(o: T): T =>
  Object.fromEntries(
    Object.entries(o).filter(([k, v]) => k === 'projectId' || (v !== null && v !== undefined)),
  ) as T;

/** A database of the suite's own on the store TEST_STORE names (PostgreSQL by default). */
export async function openTestStore(): Promise<TestStore> {
  return infra.store === 'postgres' ? openPostgres() : openMongo();
}

async function openPostgres(): Promise<TestStore> {
  const db = await freshPostgresDatabase('mail_it', MIGRATIONS_DIR);
  const q = async <R extends object>(sql: string, params: unknown[]) =>
    (await db.pool.query<R>(sql, params)).rows;
  return {
    store: { kind: 'postgres', pool: db.pool, url: db.url },
    stored: {
      messages: async (projectId) =>
        (
          await q<StoredMessage>(
            `SELECT id, project_id AS "projectId", recipient AS "to", status, system, attempts,
                    template_key AS "templateKey", caused_by AS "causedBy"
             FROM messages WHERE project_id IS NOT DISTINCT FROM $1::text ORDER BY created_at, id`,
            [projectId],
          )
        ).map(defined),
      eventPending: async (messageId) =>
        (await q("SELECT 1 FROM outbox WHERE event->'data'->>'messageId' = $1", [messageId])).length > 0,
      usage: async (projectId, bucket) => {
        const rows = await q<{ n: number }>(
          `SELECT COALESCE(sum(used), 0)::int AS n FROM usage_counters
           WHERE project_id = $1 AND ($2::text IS NULL OR bucket = $2)`,
          [projectId, bucket ?? null],
        );
        return rows[0]?.n ?? 0;
      },
      usageBuckets: async (projectId) =>
        (
          await q<{ bucket: string }>(
            'SELECT bucket FROM usage_counters WHERE project_id = $1 ORDER BY bucket',
            [projectId],
          )
        ).map((r) => r.bucket),
      insertUsage: async (projectId, bucket, at) => {
        await q(
          `INSERT INTO usage_counters (project_id, bucket, used, last_claimed_at) VALUES ($1, $2, 1, $3)
           ON CONFLICT (project_id, bucket) DO UPDATE SET used = usage_counters.used + 1`,
          [projectId, bucket, at],
        );
      },
      templateCount: async (projectId) =>
        (await q('SELECT 1 FROM templates WHERE project_id = $1', [projectId])).length,
    },
    drop: () => db.drop(),
  };
}

async function openMongo(): Promise<TestStore> {
  const { connectMongo } = await import('@baas/common/mongo');
  const client = await connectMongo(infra.mongoUrl, 'mail-it');
  const db = client.db(uniqueDbName('mail_it'));
  const messages = db.collection('messages');
  const usage = db.collection('usage');
  return {
    store: { kind: 'mongodb', client, db },
    stored: {
      messages: async (projectId) =>
        (await messages.find({ projectId }).sort({ createdAt: 1, _id: 1 }).toArray()).map((d) =>
          defined({
            id: String(d._id),
            projectId: d.projectId as string | null,
            to: d.to as string,
            status: d.status as string,
            system: d.system as boolean,
            attempts: d.attempts as number | undefined,
            templateKey: d.templateKey as string | undefined,
            causedBy: d.causedBy as string | undefined,
          }),
        ),
      eventPending: async (messageId) => {
        const { ObjectId } = await import('mongodb');
        return (
          (await messages.countDocuments({ _id: new ObjectId(messageId), _outbox: { $exists: true } })) > 0
        );
      },
      usage: (projectId, bucket) => usage.countDocuments({ projectId, ...(bucket ? { bucket } : {}) }),
      usageBuckets: async (projectId) =>
        (await usage.find({ projectId }).sort({ bucket: 1 }).toArray()).map((d) => d.bucket as string),
      insertUsage: async (projectId, bucket, at) => {
        const n = (await usage.countDocuments({ projectId, bucket })) + 1;
        await usage.insertOne({ _id: `${projectId}:${bucket}:${n}` as never, projectId, bucket, n, at });
      },
      templateCount: (projectId) => db.collection('templates').countDocuments({ owner: projectId }),
    },
    drop: async () => {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}
