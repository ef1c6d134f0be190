import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  ACCESS_TOKEN_ISSUER,
  accessTokenAudience,
  assertionKey,
  connectNats,
  createAccessTokenVerifier,
  createLogger,
  JetStreamBus,
  signAssertion,
  trustedProjectId,
  type ProjectId,
} from '@baas/common';
import { infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';
import { createApp } from '../../src/app';
import { wireData, type Wiring } from '../../src/wiring';

/**
 * The data service with its real adapters (FerretDB, NATS), a locally generated Ed25519 key that
 * signs end-user tokens with the auth service's claims, and helpers that call it the way the
 * gateway does (with a signed assertion).
 */
export interface Harness {
  base: string;
  wiring: Wiring;
  mongo: MongoClient;
  nc: NatsConnection;
  dbName: string;
  newProject(documents?: number): ProjectId;
  token(projectId: ProjectId, userId: string, opts?: { expiresIn?: string }): Promise<string>;
  call<T = any>(method: string, path: string, opts?: CallOpts): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export interface CallOpts {
  projectId?: ProjectId;
  key?: 'publishable' | 'secret';
  admin?: boolean;
  token?: string;
  body?: unknown;
  documents?: number;
}

const SECRET = randomBytes(32).toString('base64url');

export async function startHarness(prefix = 'data_it', mongoUrl = infra.mongoUrl): Promise<Harness> {
  await requireInfra('mongo', 'nats');
  const logger = createLogger('data-test', 'silent');
  const mongo = await MongoClient.connect(mongoUrl);
  const nc = await connectNats(infra.natsUrl, 'data-test', logger);
  const bus = await JetStreamBus.create(nc, logger);
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'EdDSA', use: 'sig' };
  const tokens = createAccessTokenVerifier(createLocalJWKSet({ keys: [jwk] }));
  const dbName = uniqueDbName(prefix);
  const wiring = await wireData({
    mongo,
    dbName,
    tokens,
    publisher: bus,
    logger,
    limits: { defaultDocumentQuota: 100000, queryMaxTimeMs: 5000 },
    outboxIntervalMs: 500,
  });
  wiring.relay.start();
  const svc = createApp({ logger, assertionSecret: SECRET, readiness: [], data: wiring.deps });
  const server = http.createServer(svc.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const projects: ProjectId[] = [];
  const quotas = new Map<string, number>();

  return {
    base,
    wiring,
    mongo,
    nc,
    dbName,
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
      const assertion = await signAssertion(assertionKey(SECRET), 'data', {
        requestId: randomUUID(),
        admin: opts.admin ?? false,
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
      headers['x-gateway-assertion'] = assertion;
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      }
      const r = await fetch(`${base}${path}`, { method, headers, body });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await wiring.relay.stop();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
      for (const p of projects)
        await mongo
          .db(wiring.store.dbName(p))
          .dropDatabase()
          .catch(() => undefined);
      await mongo
        .db(dbName)
        .dropDatabase()
        .catch(() => undefined);
      await nc.drain();
      await mongo.close();
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
