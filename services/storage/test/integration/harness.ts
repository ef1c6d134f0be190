import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  assertionKey,
  createLogger,
  signAssertion,
  trustedProjectId,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import { OutboxRelay } from '@baas/common/mongo';
import { createApp } from '../../src/app';
import { MongoFileRepository } from '../../src/adapters/mongo-file-repository';
import { MongoQuotaLedger, MongoSweepCursor } from '../../src/adapters/mongo-quota-ledger';
import { LocalObjectStore } from '../../src/adapters/local-object-store';
import { S3ObjectStore } from '../../src/adapters/s3-object-store';
import type { FileDeps } from '../../src/domain/files/deps';
import type { ObjectStore } from '../../src/ports';
import { infra, uniqueDbName } from '../../../../test/support/infra';

export type Driver = 's3' | 'local';
export const SECRET = randomBytes(32).toString('base64url');
export const BASE_URL = 'http://files.test/files';

export interface Harness {
  url: string;
  db: Db;
  deps: FileDeps;
  store: ObjectStore;
  files: MongoFileRepository;
  quota: MongoQuotaLedger;
  cursor: MongoSweepCursor;
  events: EventEnvelope[];
  relay: OutboxRelay;
  close(): Promise<void>;
}

export function newProjectId(): ProjectId {
  return trustedProjectId(randomBytes(12).toString('hex'));
}

export async function startHarness(driver: Driver, maxFileBytes: number): Promise<Harness> {
  const mongo = await MongoClient.connect(infra.mongoUrl);
  const db = mongo.db(uniqueDbName('storage_it'));
  const logger = createLogger('storage-test', 'silent');
  let store: ObjectStore;
  let cleanupStore: () => Promise<void>;
  if (driver === 's3') {
    const bucket = uniqueDbName('storage-it').replace(/_/g, '-').toLowerCase();
    const s3 = new S3ObjectStore({
      endpoint: infra.s3Endpoint,
      region: 'us-east-1',
      bucket,
      accessKeyId: infra.s3AccessKeyId,
      secretAccessKey: infra.s3SecretAccessKey,
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
    };
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'storage-it-'));
    const local = new LocalObjectStore(dir);
    await local.init();
    store = local;
    cleanupStore = () => rm(dir, { recursive: true, force: true });
  }
  const events: EventEnvelope[] = [];
  const files: MongoFileRepository = new MongoFileRepository(db, (coll, id) => relay.relayOne(coll, id));
  await files.ensureIndexes();
  const relay: OutboxRelay = new OutboxRelay({
    collections: () => [files.coll as unknown as Collection],
    publisher: { publish: async (e) => void events.push(e) },
    logger,
    intervalMs: 200,
  });
  relay.start();
  const quota = new MongoQuotaLedger(db);
  const deps: FileDeps = {
    files,
    quota,
    store,
    limits: { maxFileBytes, defaultQuotaBytes: 100 * 1024 * 1024 },
    publicBaseUrl: BASE_URL,
  };
  const { app } = createApp({ logger, assertionSecret: SECRET, readiness: [], files: deps });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    db,
    deps,
    store,
    files,
    quota,
    cursor: new MongoSweepCursor(db),
    events,
    relay,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await relay.stop();
      await cleanupStore();
      await db.dropDatabase();
      await mongo.close();
    },
  };
}

export async function keyAssertion(
  projectId: ProjectId,
  storageBytes = 100 * 1024 * 1024,
  keyType: 'publishable' | 'secret' = 'secret',
): Promise<string> {
  return signAssertion(assertionKey(SECRET), 'storage', {
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
  return signAssertion(assertionKey(SECRET), 'storage', { requestId: 'pub', admin: false });
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
