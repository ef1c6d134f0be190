import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  createLogger,
  generateAssertionKeyPair,
  signAssertion,
  trustedProjectId,
  type EventEnvelope,
  type ProjectId,
  type ServiceStore,
} from '@baas/common';
import { createApp } from '../../src/app';
import { LocalObjectStore } from '../../src/adapters/local-object-store';
import { S3ObjectStore } from '../../src/adapters/s3-object-store';
import type { FileDeps } from '../../src/domain/files/deps';
import type { FileRepository, FileStatus, ObjectStore, QuotaLedger, SweepCursor } from '../../src/ports';
import { MIGRATIONS_DIR, wireStorage, type RelayHandle } from '../../src/wiring';
import { infra, uniqueDbName } from '../../../../test/support/infra';
import { freshPostgresDatabase } from '../../../../test/support/postgres';

export type Driver = 's3' | 'local';
/** The gateway's key pair: the harness signs as the gateway, the app verifies. */
export const ASSERTION_KEYS = generateAssertionKeyPair();
export const BASE_URL = 'http://files.test/files';

/** A file record as stored, read straight from the database (whichever store). */
export interface StoredFile {
  path: string;
  status: FileStatus | 'deleted';
  size: number;
  contentType: string;
  reserved: number;
}

export interface Harness {
  url: string;
  /** Which store the adapters run on (TEST_STORE). */
  storeKind: ServiceStore['kind'];
  deps: FileDeps;
  store: ObjectStore;
  files: FileRepository;
  quota: QuotaLedger;
  cursor: SweepCursor;
  events: EventEnvelope[];
  relay: RelayHandle;
  recordsOf(projectId: ProjectId): Promise<StoredFile[]>;
  /** Files waiting in the S3 driver's spool directory (none once every upload has settled). */
  spooled(): Promise<string[]>;
  close(): Promise<void>;
}

interface TestStore {
  store: ServiceStore;
  recordsOf(projectId: ProjectId): Promise<StoredFile[]>;
  drop(): Promise<void>;
}

/** A database of the suite's own on the store TEST_STORE names (PostgreSQL by default). */
async function openTestStore(): Promise<TestStore> {
  if (infra.store === 'postgres') {
    const db = await freshPostgresDatabase('storage_it', MIGRATIONS_DIR);
    return {
      store: { kind: 'postgres', pool: db.pool, url: db.url },
      recordsOf: async (projectId) => {
        const { rows } = await db.pool.query<StoredFile>(
          `SELECT path, status, size::float8 AS size, content_type AS "contentType", reserved::float8 AS reserved
           FROM files WHERE project_id = $1 ORDER BY path`,
          [projectId],
        );
        return rows;
      },
      drop: () => db.drop(),
    };
  }
  const { MongoClient } = await import('mongodb');
  const client = await MongoClient.connect(infra.mongoUrl);
  const db = client.db(uniqueDbName('storage_it'));
  return {
    store: { kind: 'mongodb', client, db },
    recordsOf: async (projectId) => {
      const docs = await db.collection('files').find({ projectId }).sort({ _id: 1 }).toArray();
      return docs.map((d) => ({
        path: String(d._id),
        status: d.status as StoredFile['status'],
        size: d.size as number,
        contentType: d.contentType as string,
        reserved: d.reserved as number,
      }));
    },
    drop: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}

export function newProjectId(): ProjectId {
  return trustedProjectId(randomBytes(12).toString('hex'));
}

export async function startHarness(driver: Driver, maxFileBytes: number): Promise<Harness> {
  const testStore = await openTestStore();
  const logger = createLogger('storage-test', 'silent');
  let store: ObjectStore;
  let cleanupStore: () => Promise<void>;
  let spoolDir: string | undefined;
  if (driver === 's3') {
    const bucket = uniqueDbName('storage-it').replace(/_/g, '-').toLowerCase();
    spoolDir = await mkdtemp(path.join(os.tmpdir(), 'storage-it-spool-'));
    const s3 = new S3ObjectStore({
      endpoint: infra.s3Endpoint,
      region: 'us-east-1',
      bucket,
      accessKeyId: infra.s3AccessKeyId,
      secretAccessKey: infra.s3SecretAccessKey,
      spoolDir,
      // Small, so that the suite's larger uploads take the file path and the small ones memory.
      spoolMemoryBytes: 4096,
    });
    await s3.ensureBucket();
    await s3.ensureBucket(); // idempotent
    store = s3;
    cleanupStore = async () => {
      const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket }));
      for (const o of listed.Contents ?? [])
        await s3.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
      await s3.client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
      s3.client.destroy();
      await rm(spoolDir as string, { recursive: true, force: true });
    };
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'storage-it-'));
    const local = new LocalObjectStore(dir);
    await local.init();
    store = local;
    cleanupStore = () => rm(dir, { recursive: true, force: true });
  }
  const events: EventEnvelope[] = [];
  const wired = await wireStorage({
    store: testStore.store,
    objects: store,
    publisher: { publish: async (e) => void events.push(e) },
    logger,
    limits: { maxFileBytes, defaultQuotaBytes: 100 * 1024 * 1024 },
    publicBaseUrl: BASE_URL,
    relayIntervalMs: 200,
  });
  const { deps } = wired;
  const { app } = createApp({
    logger,
    assertionPublicKey: ASSERTION_KEYS.publicKey,
    readiness: [],
    files: deps,
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    storeKind: testStore.store.kind,
    deps,
    store,
    files: deps.files,
    quota: deps.quota,
    cursor: wired.cursor,
    events,
    relay: wired.relay,
    recordsOf: testStore.recordsOf,
    spooled: async () => (spoolDir ? await readdir(spoolDir) : []),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of wired.closers) await c.close();
      await cleanupStore();
      await testStore.drop();
    },
  };
}

export async function keyAssertion(
  projectId: ProjectId,
  storageBytes = 100 * 1024 * 1024,
  keyType: 'publishable' | 'secret' = 'secret',
): Promise<string> {
  return signAssertion(ASSERTION_KEYS.privateKey, 'storage', {
    requestId: randomBytes(8).toString('hex'),
    admin: false,
    projectId,
    keyType,
    settings: {
      publicSignups: true,
      requireEmailVerification: false,
      limits: { storageBytes, documents: 1000, mailMonthly: 100 },
    },
  });
}

export async function publicAssertion(): Promise<string> {
  return signAssertion(ASSERTION_KEYS.privateKey, 'storage', { requestId: 'pub', admin: false });
}

export function form(
  bytes: Buffer | Uint8Array,
  filename = 'photo.png',
  type = 'image/png',
  field = 'file',
): FormData {
  const f = new FormData();
  f.append(field, new Blob([bytes], { type }), filename);
  return f;
}
