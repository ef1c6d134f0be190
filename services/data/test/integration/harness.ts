import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ObjectId, type Db, type Document } from 'mongodb';
import { connectMongo } from '@baas/common/mongo';
import type { Pool } from '@baas/common/postgres';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  ACCESS_TOKEN_ISSUER,
  accessTokenAudience,
  connectNats,
  createAccessTokenVerifier,
  createLogger,
  generateAssertionKeyPair,
  JetStreamBus,
  signAssertion,
  trustedProjectId,
  type ProjectId,
  type ServiceStore,
} from '@baas/common';
import { infra, requireInfra, storeNeed, uniqueDbName } from '../../../../test/support/infra';
import { freshPostgresDatabase } from '../../../../test/support/postgres';
import { createApp } from '../../src/app';
import { wireData, type DataWiring } from '../../src/wiring';

const MIGRATIONS = path.resolve(__dirname, '../../migrations');

/**
 * What a test may look at below the API, on either store: how many documents of a collection
 * are stored (trash and purge-pending included), whether events are still waiting in the
 * outbox, and whether anything of a project is left.
 */
export interface StoreProbe {
  kind: ServiceStore['kind'];
  storedCount(projectId: ProjectId, collection: string): Promise<number>;
  pendingEvents(projectId: ProjectId, collection: string, id: string): Promise<number>;
  projectLeftovers(projectId: ProjectId): Promise<number>;
  storedField(projectId: ProjectId, collection: string, id: string, field: string): Promise<unknown>;
  /** MongoDB only: the service's own database, and a raw write into a project's collection. */
  mongoDb(): Db;
  /** PostgreSQL only: the service's pool. */
  postgresPool(): Pool;
  insertRaw(projectId: ProjectId, collection: string, doc: Document): Promise<void>;
  close(): Promise<void>;
}

const mongoOnly = (): never => {
  throw new Error('this probe is for the MongoDB store');
};
const postgresOnly = (): never => {
  throw new Error('this probe is for the PostgreSQL store');
};

async function postgresStore(prefix: string): Promise<{ store: ServiceStore; probe: StoreProbe }> {
  const db = await freshPostgresDatabase(prefix, MIGRATIONS);
  const q = async (sql: string, params: unknown[]) =>
    (await db.pool.query(sql, params)).rows[0] as Record<string, unknown>;
  return {
    store: { kind: 'postgres', pool: db.pool, url: db.url },
    probe: {
      kind: 'postgres',
      storedCount: async (p, c) =>
        Number(
          (await q('SELECT count(*) AS n FROM documents WHERE project_id = $1 AND collection = $2', [p, c]))
            .n,
        ),
      pendingEvents: async () => Number((await q('SELECT count(*) AS n FROM outbox', [])).n),
      projectLeftovers: async (p) =>
        Number(
          (
            await q(
              `SELECT (SELECT count(*) FROM documents WHERE project_id = $1)
                    + (SELECT count(*) FROM collections WHERE project_id = $1)
                    + (SELECT count(*) FROM document_unique_values WHERE project_id = $1)
                    + (SELECT count(*) FROM project_document_counts WHERE project_id = $1)
                    + (SELECT count(*) FROM collection_counts WHERE project_id = $1)
                    + (SELECT count(*) FROM collection_indexes WHERE project_id = $1)
                    + (SELECT count(*) FROM document_index_values WHERE project_id = $1) AS n`,
              [p],
            )
          ).n,
        ),
      storedField: async (p, c, id, f) =>
        (
          await q(
            'SELECT body -> $4 AS v FROM documents WHERE project_id = $1 AND collection = $2 AND id = $3',
            [p, c, id, f],
          )
        )?.v,
      mongoDb: mongoOnly,
      postgresPool: () => db.pool,
      insertRaw: mongoOnly,
      close: () => db.drop(),
    },
  };
}

async function mongoStore(
  prefix: string,
  mongoUrl: string,
): Promise<{ store: ServiceStore; probe: StoreProbe }> {
  // The client main.ts uses, with the production write and read concerns.
  const client = await connectMongo(mongoUrl, 'data-it');
  const dbName = uniqueDbName(prefix);
  const projectDb = (p: ProjectId) => client.db(`${dbName}_p_${p}`);
  const seen = new Set<ProjectId>();
  return {
    store: { kind: 'mongodb', client, db: client.db(dbName) },
    probe: {
      kind: 'mongodb',
      storedCount: (p, c) => (seen.add(p), projectDb(p).collection(c).countDocuments({})),
      pendingEvents: async (p, c, id) => {
        const d = await projectDb(p)
          .collection(c)
          .findOne({ _id: new ObjectId(id) });
        return (d?._outbox as unknown[] | undefined)?.length ?? 0;
      },
      projectLeftovers: async (p) => {
        const dbs = (await client.db('admin').admin().listDatabases()).databases.map((d) => d.name);
        const counter = await client
          .db(dbName)
          .collection('document_counts')
          .countDocuments({ _id: p as never });
        const defs = await client.db(dbName).collection('collections').countDocuments({ projectId: p });
        return (dbs.includes(`${dbName}_p_${p}`) ? 1 : 0) + counter + defs;
      },
      storedField: async (p, c, id, f): Promise<unknown> =>
        (
          await projectDb(p)
            .collection(c)
            .findOne({ _id: new ObjectId(id) })
        )?.[f],
      mongoDb: () => client.db(dbName),
      postgresPool: postgresOnly,
      insertRaw: async (p, c, doc) => void (await projectDb(p).collection(c).insertOne(doc)),
      close: async () => {
        const dbs = (await client.db('admin').admin().listDatabases()).databases.map((d) => d.name);
        for (const name of dbs)
          if (name.startsWith(dbName))
            await client
              .db(name)
              .dropDatabase()
              .catch(() => undefined);
        await client.close();
      },
    },
  };
}

/**
 * The data service with its real adapters (FerretDB, NATS), a locally generated Ed25519 key that
 * signs end-user tokens with the auth service's claims, and helpers that call it the way the
 * gateway does (with a signed assertion).
 */
export interface Harness {
  base: string;
  wiring: DataWiring;
  probe: StoreProbe;
  nc: NatsConnection;
  newProject(documents?: number): ProjectId;
  token(projectId: ProjectId, userId: string, opts?: { expiresIn?: string }): Promise<string>;
  call<T = any>(
    method: string,
    path: string,
    opts?: CallOpts,
  ): Promise<{ status: number; body: T; contentType?: string | undefined }>;
  close(): Promise<void>;
}

export interface CallOpts {
  projectId?: ProjectId;
  key?: 'publishable' | 'secret';
  admin?: boolean;
  token?: string;
  body?: unknown;
  documents?: number;
  /** The client address the gateway would assert (audit entries). */
  clientIp?: string;
  /** A body sent as it is (no content type set unless `headers` gives one). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Through the app without its hot routes (express for every request). */
  express?: boolean;
  /** Leave the assertion out, or send this one instead of a valid one. */
  assertion?: string | null;
}

/** The gateway's key pair: the harness signs as the gateway, the app verifies. */
const ASSERTION_KEYS = generateAssertionKeyPair();

/** The data service on the store TEST_STORE names (PostgreSQL by default), in a database of its own. */
export async function startHarness(
  prefix = 'data_it',
  opts: { store?: ServiceStore['kind']; mongoUrl?: string } = {},
): Promise<Harness> {
  const kind = opts.store ?? infra.store;
  await requireInfra(kind === 'mongodb' ? 'mongo' : storeNeed(), 'nats');
  const logger = createLogger('data-test', 'silent');
  const { store, probe } =
    kind === 'postgres'
      ? await postgresStore(prefix)
      : await mongoStore(prefix, opts.mongoUrl ?? infra.mongoUrl);
  const nc = await connectNats(infra.natsUrl, 'data-test', logger);
  const bus = await JetStreamBus.create(nc, logger);
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'EdDSA', use: 'sig' };
  const tokens = createAccessTokenVerifier(createLocalJWKSet({ keys: [jwk] }));
  const wiring = await wireData({
    store,
    tokens,
    publisher: bus,
    logger,
    limits: { defaultDocumentQuota: 100000, queryMaxTimeMs: 5000 },
    outboxIntervalMs: 500,
  });
  wiring.relay.start();
  const svc = createApp({
    logger,
    assertionPublicKey: ASSERTION_KEYS.publicKey,
    readiness: [],
    data: wiring.deps,
  });
  const server = http.createServer(svc.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // the same wiring behind express alone: what the hot routes must answer alike
  const expressOnly = http.createServer(
    createApp({
      logger,
      assertionPublicKey: ASSERTION_KEYS.publicKey,
      readiness: [],
      data: wiring.deps,
      hotRoutes: false,
    }).app,
  );
  expressOnly.listen(0, '127.0.0.1');
  await once(expressOnly, 'listening');
  const expressBase = `http://127.0.0.1:${(expressOnly.address() as AddressInfo).port}`;
  const projects: ProjectId[] = [];
  const quotas = new Map<string, number>();

  return {
    base,
    wiring,
    probe,
    nc,
    newProject(documents = 100000) {
      const id = trustedProjectId(new ObjectId().toHexString());
      projects.push(id);
      quotas.set(id, documents);
      return id;
    },
    async token(projectId, userId, opts = {}) {
      return new SignJWT({ sid: randomUUID() })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'test-key' })
        .setIssuer(ACCESS_TOKEN_ISSUER)
        .setAudience(accessTokenAudience(projectId))
        .setSubject(userId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(opts.expiresIn ?? '10m')
        .sign(privateKey);
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = {};
      const assertion = await signAssertion(ASSERTION_KEYS.privateKey, 'data', {
        requestId: randomUUID(),
        admin: opts.admin ?? false,
        ...(opts.clientIp ? { clientIp: opts.clientIp } : {}),
        ...(opts.projectId ? { projectId: opts.projectId } : {}),
        ...(opts.admin ? {} : { keyType: opts.key ?? 'secret' }),
        ...(opts.projectId
          ? {
              settings: {
                publicSignups: true,
                requireEmailVerification: false,
                limits: {
                  storageBytes: 1e8,
                  documents: opts.documents ?? quotas.get(opts.projectId) ?? 100000,
                  mailMonthly: 1000,
                },
              },
            }
          : {}),
      });
      if (opts.assertion !== null) headers['x-gateway-assertion'] = opts.assertion ?? assertion;
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | Buffer | undefined;
      if (opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      }
      if (opts.rawBody !== undefined) body = opts.rawBody;
      Object.assign(headers, opts.headers);
      const r = await fetch(`${opts.express ? expressBase : base}${path}`, { method, headers, body });
      const text = await r.text();
      const contentType = r.headers.get('content-type') ?? undefined;
      return { status: r.status, body: text ? JSON.parse(text) : undefined, contentType };
    },
    async close() {
      await wiring.relay.stop();
      await wiring.close();
      for (const s of [server, expressOnly]) {
        s.closeAllConnections();
        await new Promise<void>((res) => s.close(() => res()));
      }
      await nc.drain();
      await probe.close();
    },
  };
}

/** Registers a collection through the admin API. */
export async function register(
  h: Harness,
  projectId: ProjectId,
  name: string,
  def: unknown = {},
): Promise<void> {
  const r = await h.call('PUT', `/api/admin/projects/${projectId}/collections/${name}`, {
    admin: true,
    projectId,
    body: def,
  });
  if (r.status !== 201 && r.status !== 200)
    throw new Error(`register ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}
