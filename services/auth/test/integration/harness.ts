import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import {
  createLogger,
  generateAssertionKeyPair,
  openCodes,
  openConsoleCodes,
  signAssertion,
  type CodeEventType,
  type ConsoleActorClaim,
  type ConsoleCodeEventType,
  type EventEnvelope,
  type MailCodes,
  type EventPublisher,
  type ProjectId,
  type ProjectSettingsClaim,
  type ServiceStore,
} from '@baas/common';
import { infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';
import { freshPostgresDatabase } from '../../../../test/support/postgres';
import { createApp } from '../../src/app';
import { loadAuthConfig, type AuthConfig } from '../../src/config';
import { wireAuth, type AuthWiring } from '../../src/wiring';
import type { OutboxRelayLoop } from '../../src/adapters/store-adapters';
import { mongoProbe, postgresProbe, type StoreProbe } from './store-probe';

/** The gateway's key pair for these tests: the harness signs as the gateway, the app verifies. */
export const ASSERTION_KEYS = generateAssertionKeyPair();
/** Auth's own secret (required, and distinct from every other). */
export const AUTH_SECRET = 'integration-test-auth-secret-0123456789abcdef';
/** What every auth config of these tests starts from. */
export const AUTH_TEST_ENV = { GATEWAY_ASSERTION_PUBLIC_KEY: ASSERTION_KEYS.publicKeyPem, AUTH_SECRET };
/** The key auth seals verification and reset codes with (what the mail service would hold). */
export const MAIL_ENVELOPE_KEY = '6d61696c2d656e76656c6f70652d6b65792d666f722d746573747330313233ab';

/** The auth service's own migrations (what the service applies at boot). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

export interface Harness {
  /** The store the suite runs on (TEST_STORE: postgres by default, or mongodb). */
  store: ServiceStore;
  /** Stored state, in the tests' terms, whichever the store. */
  probe: StoreProbe;
  wiring: AuthWiring;
  config: AuthConfig;
  base: string;
  published: EventEnvelope[];
  relay: OutboxRelayLoop;
  /** The link token and code a verification or reset event carries sealed, opened as mail would. */
  codes(event: EventEnvelope): MailCodes;
  /** The link token a console invitation or reset event carries sealed, opened as mail would. */
  consoleToken(event: EventEnvelope): string;
  /** What the service told gateways to drop (core NATS in production), in order. */
  invalidated: { projects: string[]; accounts: string[] };
  /** Moves the service's clock (codes, refresh tokens); access-token times use the real clock. */
  advance(seconds: number): void;
  /** A live project in the auth database (the user API refuses unknown or deleted ones). */
  project(settings?: Partial<ProjectSettingsClaim>): Promise<ProjectId>;
  call(
    method: string,
    path: string,
    opts?: CallOpts,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface CallOpts {
  projectId?: ProjectId;
  settings?: Partial<ProjectSettingsClaim>;
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  admin?: boolean;
  noAssertion?: boolean;
  /** The client address the gateway would assert (audit entries). */
  clientIp?: string;
  /** The console account the gateway resolved from a session cookie (claim `acct`). */
  account?: ConsoleActorClaim;
  /** The projects such an account may list (claim `scp`). */
  scope?: string[];
}

const DEFAULT_SETTINGS: ProjectSettingsClaim = {
  publicSignups: true,
  requireEmailVerification: false,
  limits: { storageBytes: 1, documents: 1, mailMonthly: 1 },
};

/** A database of the suite's own on the store under test. */
export interface TestStore {
  store: ServiceStore;
  /** Its DATABASE_URL. */
  url: string;
  probe: StoreProbe;
  /** Drops the database and closes the connection. */
  close(): Promise<void>;
}

export async function openTestStore(prefix = 'auth_it'): Promise<TestStore> {
  if (infra.store === 'postgres') {
    const db = await freshPostgresDatabase(prefix, MIGRATIONS_DIR);
    return {
      store: { kind: 'postgres', pool: db.pool, url: db.url },
      url: db.url,
      probe: postgresProbe(db.pool),
      close: () => db.drop(),
    };
  }
  await requireInfra('mongo');
  const { MongoClient } = await import('mongodb');
  const name = uniqueDbName(prefix);
  const client = new MongoClient(infra.mongoUrl);
  await client.connect();
  const db = client.db(name);
  const url = new URL(infra.mongoUrl);
  url.pathname = `/${name}`;
  return {
    store: { kind: 'mongodb', client, db },
    url: url.toString(),
    probe: mongoProbe(db),
    close: async () => {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

/**
 * The auth app on a fresh database of the store under test, wired by the service's own wiring
 * module; events are captured from the outbox.
 */
export async function startHarness(
  env: Record<string, string> = {},
  opts: HarnessOptions = {},
): Promise<Harness> {
  const opened = await openTestStore();
  try {
    return await harnessOn(opened, env, opts);
  } catch (e) {
    await opened.close().catch(() => undefined);
    throw e;
  }
}

export interface HarnessOptions {
  /** Also publishes every event here (e.g. JetStream, for other services' in-process apps). */
  forwardTo?: EventPublisher;
  /** close() leaves the store open (another harness starts on the same database after it). */
  keepStore?: boolean;
}

export async function harnessOn(
  opened: TestStore,
  env: Record<string, string>,
  opts: HarnessOptions,
): Promise<Harness> {
  const config = loadAuthConfig({
    ...AUTH_TEST_ENV,
    LOG_LEVEL: 'silent',
    DATABASE_URL: opened.url,
    MAIL_ENVELOPE_KEY,
    CODE_RESEND_INTERVAL_SECONDS: '0',
    ...env,
  });
  const logger = createLogger('auth-test', (process.env.TEST_LOG_LEVEL as 'silent' | undefined) ?? 'silent');
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  const published: EventEnvelope[] = [];
  const invalidated = { projects: [] as string[], accounts: [] as string[] };
  const invalidator = {
    projectChanged: (id: string) => void invalidated.projects.push(id),
    consoleAccountChanged: (id: string) => void invalidated.accounts.push(id),
  };
  const publisher: EventPublisher = {
    publish: async (e) => {
      published.push(e);
      await opts.forwardTo?.publish(e);
    },
  };
  // Not started: writes kick it, tests flush it; no periodic pass races their assertions.
  const wiring = await wireAuth(opened.store, config, logger, publisher, {
    clock,
    relayIntervalMs: 60_000,
    invalidator,
  });
  const { relay, projects } = wiring;
  const svc = createApp({
    logger,
    assertionPublicKey: config.GATEWAY_ASSERTION_PUBLIC_KEY,
    readiness: [],
    projects: {
      projects,
      invalidator,
      ids: wiring.projectIds,
      defaults: { storageBytes: 1, documents: 1, mailMonthly: 1 },
      members: wiring.console.members,
    },
    auth: wiring.deps,
    audit: wiring.audit,
    console: wiring.console,
  });
  const server = http.createServer(svc.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = ASSERTION_KEYS.privateKey;
  const settingsOf = new Map<string, Partial<ProjectSettingsClaim>>();

  return {
    store: opened.store,
    probe: opened.probe,
    wiring,
    config,
    base,
    published,
    relay,
    codes: (e) => openCodes([config.MAIL_ENVELOPE_KEY], e as EventEnvelope<CodeEventType>),
    consoleToken: (e) =>
      openConsoleCodes([config.MAIL_ENVELOPE_KEY], e as EventEnvelope<ConsoleCodeEventType>).token,
    invalidated,
    advance: (s) => {
      offsetMs += s * 1000;
    },
    async project(settings = {}) {
      const id = wiring.projectIds.projectId();
      settingsOf.set(id, settings);
      const now = new Date();
      const key = () => ({ hash: randomBytes(32).toString('hex'), prefix: 'pk_live_test', createdAt: now });
      const stored = {
        ...(settings.publicSignups !== undefined ? { publicSignups: settings.publicSignups } : {}),
        ...(settings.requireEmailVerification !== undefined
          ? { requireEmailVerification: settings.requireEmailVerification }
          : {}),
      };
      await projects.insert(
        {
          id,
          name: 'it',
          settings: stored,
          keys: { publishable: key(), secret: key() },
          createdAt: now,
          updatedAt: now,
        },
        [],
      );
      return id;
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (!opts.noAssertion) {
        const projectId = opts.projectId;
        const settings = {
          ...DEFAULT_SETTINGS,
          ...(projectId ? settingsOf.get(projectId) : {}),
          ...opts.settings,
        };
        // the request id travels in x-request-id, as the gateway sends it
        headers['x-request-id'] ??= `it-${Math.random().toString(36).slice(2)}`;
        headers['x-gateway-assertion'] = await signAssertion(key, 'auth', {
          admin: opts.admin ?? false,
          ...(opts.clientIp ? { clientIp: opts.clientIp } : {}),
          ...(projectId ? { projectId } : {}),
          ...(projectId && !opts.admin ? { keyType: 'publishable' as const, settings } : {}),
          ...(projectId && opts.admin ? { settings } : {}),
          ...(opts.account ? { account: opts.account } : {}),
          ...(opts.scope ? { scope: opts.scope } : {}),
        });
      }
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.body);
      }
      const r = await fetch(base + path, { method, headers, body });
      const text = await r.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* keep text */
      }
      return { status: r.status, body: parsed, headers: r.headers };
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      for (const c of wiring.closers) await c.close();
      if (!opts.keepStore) await opened.close();
    },
  };
}

/** The refresh cookie value from a response, if one was set (empty string when cleared). */
export function refreshCookie(headers: Headers): string | undefined {
  for (const c of headers.getSetCookie()) {
    const m = /^refreshToken=([^;]*)/.exec(c);
    if (m) return m[1];
  }
  return undefined;
}

/** Polls until the check passes (for effects of the asynchronous outbox relay). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
