import http from 'node:http';
import path from 'node:path';
import os from 'node:os';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectNats,
  createAccessTokenVerifier,
  createLogger,
  generateAssertionKeyPair,
  JetStreamBus,
  signAssertion,
  startRevocationFeed,
  type Closer,
  type ProjectId,
  type RevocationFeed,
  type ServiceStore,
} from '@baas/common';
import { infra, requireInfra, storeNeed, uniqueDbName } from '../../../../test/support/infra';
import { freshPostgresDatabase } from '../../../../test/support/postgres';
import {
  startHarness as startAuth,
  type Harness as AuthHarness,
} from '../../../auth/test/integration/harness';
import { createApp } from '../../src/app';
import { wireData } from '../../src/wiring';
import { createApp as createStorageApp } from '../../../storage/src/app';
import { LocalObjectStore } from '../../../storage/src/adapters/local-object-store';
import { MIGRATIONS_DIR as STORAGE_MIGRATIONS, wireStorage } from '../../../storage/src/wiring';

/**
 * Revocation everywhere: the real auth service (its own wiring, on the store under test) publishes
 * to JetStream; two replicas of the data service and a storage service, each with its own
 * revocation feed, refuse an ended session's access token within seconds, and keep accepting
 * the tokens of other sessions and users.
 */
/** The gateway's key pair: the test signs as the gateway, the replicas verify. */
const ASSERTION_KEYS = generateAssertionKeyPair();
const logger = createLogger(
  'revocation-test',
  (process.env.TEST_LOG_LEVEL as 'silent' | undefined) ?? 'silent',
);
const HDR = { 'x-refresh-token-mode': 'header' };
const SETTINGS = {
  publicSignups: true,
  requireEmailVerification: false,
  limits: { storageBytes: 1e8, documents: 1e5, mailMonthly: 1000 },
};

let auth: AuthHarness;
let nc: NatsConnection;
let bus: JetStreamBus;
const closers: Closer[] = [];
const replicas: string[] = [];
let storageBase: string;

async function listen(app: http.RequestListener): Promise<string> {
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push({ name: 'server', close: () => new Promise((r) => server.close(() => r())) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A store for one service, shared by its replicas. */
async function serviceStore(prefix: string, migrations: string): Promise<ServiceStore> {
  if (infra.store === 'postgres') {
    const db = await freshPostgresDatabase(prefix, migrations);
    closers.push({ name: prefix, close: () => db.drop() });
    return { kind: 'postgres', pool: db.pool, url: db.url };
  }
  const client = await MongoClient.connect(infra.mongoUrl);
  const name = uniqueDbName(prefix);
  closers.push({
    name: prefix,
    close: async () => {
      const dbs = await client.db().admin().listDatabases({ nameOnly: true });
      for (const d of dbs.databases)
        if (d.name.startsWith(name))
          await client
            .db(d.name)
            .dropDatabase()
            .catch(() => undefined);
      await client.close();
    },
  });
  return { kind: 'mongodb', client, db: client.db(name) };
}

async function feed(): Promise<RevocationFeed> {
  const f = await startRevocationFeed(bus.js, logger);
  closers.push({ name: 'feed', close: () => f.stop() });
  await f.ready;
  return f;
}

async function dataReplica(store: ServiceStore): Promise<string> {
  const revocations = await feed();
  const wiring = await wireData({
    store,
    tokens: createAccessTokenVerifier(auth.wiring.deps.keys.verificationKey, undefined, revocations.list),
    publisher: bus,
    logger,
    limits: { defaultDocumentQuota: 100000, queryMaxTimeMs: 5000 },
    outboxIntervalMs: 60_000,
  });
  closers.push({
    name: 'data-relay',
    close: async () => {
      await wiring.relay.stop();
      await wiring.close();
    },
  });
  const svc = createApp({
    logger,
    assertionPublicKey: ASSERTION_KEYS.publicKey,
    readiness: [],
    data: wiring.deps,
  });
  return listen(svc.app);
}

async function storageReplica(store: ServiceStore): Promise<string> {
  const revocations = await feed();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rev-files-'));
  closers.push({ name: 'files', close: () => rm(dir, { recursive: true, force: true }) });
  const objects = new LocalObjectStore(dir);
  await objects.init();
  const wired = await wireStorage({
    store,
    objects,
    publisher: bus,
    logger,
    limits: { maxFileBytes: 1e6, defaultQuotaBytes: 1e8 },
    publicBaseUrl: 'http://files.test/files',
    tokens: createAccessTokenVerifier(auth.wiring.deps.keys.verificationKey, undefined, revocations.list),
    relayIntervalMs: 60_000,
  });
  closers.push(...wired.closers);
  const svc = createStorageApp({
    logger,
    assertionPublicKey: ASSERTION_KEYS.publicKey,
    readiness: [],
    files: wired.deps,
  });
  return listen(svc.app);
}

beforeAll(async () => {
  await requireInfra(storeNeed(), 'nats', 'redis');
  nc = await connectNats(infra.natsUrl, 'revocation-test', logger);
  bus = await JetStreamBus.create(nc, logger);
  auth = await startAuth({}, { forwardTo: bus });
  const dataStore = await serviceStore('rev_data', path.resolve(__dirname, '../../migrations'));
  replicas.push(await dataReplica(dataStore), await dataReplica(dataStore));
  storageBase = await storageReplica(await serviceStore('rev_storage', STORAGE_MIGRATIONS));
}, 60_000);

afterAll(async () => {
  for (const c of closers.reverse()) await c.close().catch(() => undefined);
  await auth?.close();
  await nc?.drain();
});

async function as(
  service: 'data' | 'storage',
  base: string,
  method: string,
  url: string,
  opts: {
    projectId: ProjectId;
    key?: 'secret' | 'publishable';
    admin?: boolean;
    token?: string;
    body?: unknown;
  },
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {
    'x-gateway-assertion': await signAssertion(ASSERTION_KEYS.privateKey, service, {
      requestId: randomUUID(),
      admin: opts.admin ?? false,
      projectId: opts.projectId,
      ...(opts.admin ? {} : { keyType: opts.key ?? 'publishable' }),
      settings: SETTINGS,
    }),
  };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: FormData | string | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const r = await fetch(base + url, { method, headers, body });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function project(): Promise<ProjectId> {
  const p = await auth.project();
  const put = await as('data', replicas[0]!, 'PUT', `/api/admin/projects/${p}/collections/notes`, {
    projectId: p,
    admin: true,
    body: { rls: { enabled: true, mode: 'private', ownerField: 'userId' } },
  });
  expect([200, 201]).toContain(put.status);
  return p;
}

async function signup(p: ProjectId) {
  const email = `u${randomUUID()}@x.io`;
  const r = await auth.call('POST', '/api/userAuth/signup', {
    projectId: p,
    headers: HDR,
    body: { email, password: 'password-1' },
  });
  expect(r.status).toBe(201);
  return {
    email,
    access: r.body.accessToken as string,
    refresh: r.body.refreshToken as string,
    id: r.body.user._id as string,
  };
}

async function login(p: ProjectId, email: string, password = 'password-1') {
  const r = await auth.call('POST', '/api/userAuth/login', {
    projectId: p,
    headers: HDR,
    body: { email, password },
  });
  expect(r.status).toBe(200);
  return { access: r.body.accessToken as string, refresh: r.body.refreshToken as string };
}

/** Inserting a note as the token's user, on every data replica, and an upload at storage. */
async function statuses(p: ProjectId, token: string): Promise<number[]> {
  const out: number[] = [];
  for (const base of replicas)
    out.push(
      (await as('data', base, 'POST', '/api/data/notes', { projectId: p, token, body: { text: 'x' } }))
        .status,
    );
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'a.txt');
  out.push(
    (await as('storage', storageBase, 'POST', '/api/storage/upload', { projectId: p, token, body: form }))
      .status,
  );
  return out;
}

async function refusedEverywhere(p: ProjectId, token: string): Promise<void> {
  const end = Date.now() + 5000;
  for (;;) {
    const s = await statuses(p, token);
    if (s.every((x) => x === 401)) return;
    if (Date.now() > end) throw new Error(`still accepted after 5 s: ${s.join(',')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('access tokens of ended sessions are refused by every replica of data and storage', () => {
  it('after logout: the session is refused, another session of the user and another user are not', async () => {
    const p = await project();
    const u = await signup(p);
    const second = await login(p, u.email);
    const other = await signup(p);
    expect(await statuses(p, u.access)).toEqual([201, 201, 201]);
    const out = await auth.call('POST', '/api/userAuth/logout', {
      projectId: p,
      headers: { ...HDR, 'x-refresh-token': u.refresh },
    });
    expect(out.status).toBe(200);
    await refusedEverywhere(p, u.access);
    expect(await statuses(p, second.access)).toEqual([201, 201, 201]);
    expect(await statuses(p, other.access)).toEqual([201, 201, 201]);
    const event = auth.published.find((e) => e.type === 'auth.session_revoked' && e.projectId === p);
    expect(event?.data).toMatchObject({ userId: u.id, reason: 'logout' });
  });

  it('after a password change: the other sessions are refused, the caller’s own stays', async () => {
    const p = await project();
    const u = await signup(p);
    const other = await login(p, u.email);
    const changed = await auth.call('PUT', '/api/userAuth/change-password', {
      projectId: p,
      token: u.access,
      body: { currentPassword: 'password-1', newPassword: 'password-2' },
    });
    expect(changed.status).toBe(200);
    await refusedEverywhere(p, other.access);
    expect(await statuses(p, u.access)).toEqual([201, 201, 201]);
  });

  it('after refresh-token reuse: the whole family, the thief’s new token included, is refused', async () => {
    const p = await project();
    const u = await signup(p);
    const refresh = (t: string) =>
      auth.call('POST', '/api/userAuth/refresh-token', {
        projectId: p,
        headers: { ...HDR, 'x-refresh-token': t },
      });
    const stolen = await refresh(u.refresh);
    expect(stolen.status).toBe(200);
    auth.advance(11); // past the reuse grace window
    expect((await refresh(u.refresh)).status).toBe(401);
    await refusedEverywhere(p, stolen.body.accessToken as string);
    await refusedEverywhere(p, u.access);
  });

  it('after the user is deleted: every token of theirs is refused', async () => {
    const p = await project();
    const u = await signup(p);
    const second = await login(p, u.email);
    const other = await signup(p);
    const del = await auth.call('DELETE', `/api/admin/projects/${p}/users/${u.id}`, {
      projectId: p,
      admin: true,
    });
    expect(del.status).toBe(200);
    await refusedEverywhere(p, u.access);
    await refusedEverywhere(p, second.access);
    expect(await statuses(p, other.access)).toEqual([201, 201, 201]);
  });

  it('a replica started after the revocation replays it and refuses the token once ready', async () => {
    const p = await project();
    const u = await signup(p);
    await auth.call('POST', '/api/userAuth/logout', {
      projectId: p,
      headers: { ...HDR, 'x-refresh-token': u.refresh },
    });
    await refusedEverywhere(p, u.access);
    const late = await feed();
    const verifier = createAccessTokenVerifier(auth.wiring.deps.keys.verificationKey, undefined, late.list);
    await expect(verifier.verify(u.access, p)).rejects.toMatchObject({ status: 401 });
    const fresh = await login(p, u.email);
    await expect(verifier.verify(fresh.access, p)).resolves.toMatchObject({ userId: u.id });
  });
});
