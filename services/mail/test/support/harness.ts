import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectNats,
  createCodeEvent,
  createConsoleInvitationEvent,
  createConsolePasswordResetEvent,
  createLogger,
  generateAssertionKeyPair,
  JetStreamBus,
  parseMailEnvelopeKey,
  signAssertion,
  trustedProjectId,
  type CodeEventType,
  type ConsoleRole,
  type EventEnvelope,
  type KeyType,
  type ProcessedEvents,
  type ProjectId,
  type ServiceStore,
} from '@baas/common';
import { infra } from '../../../../test/support/infra';
import { createApp } from '../../src/app';
import { SmtpMailer } from '../../src/adapters/smtp-mailer';
import type { MailDeps } from '../../src/domain/deps';
import type { Mailer } from '../../src/ports';
import { wireMail, type RelayHandle } from '../../src/wiring';
import { Mailpit } from './mailpit';
import { openTestStore, type StoredState } from './test-store';

/** The gateway's key pair: the harness signs as the gateway, the app verifies. */
export const ASSERTION_KEYS = generateAssertionKeyPair();
export const FROM = 'BaaS Test <no-reply@baas.local>';
/** The key auth would seal the codes of its events with (MAIL_ENVELOPE_KEY of both services). */
export const ENVELOPE_KEY = parseMailEnvelopeKey(randomBytes(32).toString('base64url'));
/** CONSOLE_URL of the harness: console invitation and reset links point here. */
export const CONSOLE_URL = 'https://console.example.com/console/';

/** A verification or reset event as auth records it: the codes sealed with ENVELOPE_KEY. */
export function codeEvent<T extends CodeEventType>(
  type: T,
  projectId: ProjectId,
  fields: { userId?: string; email: string; expiresAt?: string },
  codes: { token?: string; otp: string },
  key = ENVELOPE_KEY,
) {
  return createCodeEvent(
    key,
    type,
    projectId,
    {
      userId: fields.userId ?? 'u1',
      email: fields.email,
      expiresAt: fields.expiresAt ?? new Date(Date.now() + 3600_000).toISOString(),
    },
    { token: codes.token ?? `tok-${randomBytes(16).toString('base64url')}`, otp: codes.otp },
  );
}

/** A console invitation as auth records it: the link token sealed with ENVELOPE_KEY. */
export function invitationEvent(
  projectId: ProjectId,
  fields: { email: string; projectName?: string; role?: ConsoleRole; invitedBy?: string | null },
  token = `inv-${randomBytes(24).toString('base64url')}`,
  key = ENVELOPE_KEY,
) {
  return createConsoleInvitationEvent(
    key,
    projectId,
    {
      invitationId: randomHexId(),
      email: fields.email,
      projectName: fields.projectName ?? 'Test project',
      role: fields.role ?? 'developer',
      invitedBy: fields.invitedBy ?? null,
    },
    { token },
  );
}

/** A console account's password reset as auth records it (no project). */
export function consoleResetEvent(
  email: string,
  token = `rst-${randomBytes(24).toString('base64url')}`,
  key = ENVELOPE_KEY,
) {
  return createConsolePasswordResetEvent(key, { accountId: randomHexId(), email }, { token });
}

export interface Harness {
  /** Which store the adapters run on (TEST_STORE). */
  storeKind: ServiceStore['kind'];
  /** What is stored, read straight from the database (whichever store). */
  stored: StoredState;
  nc: NatsConnection;
  bus: JetStreamBus;
  relay: RelayHandle;
  deps: MailDeps;
  mailer: SmtpMailer;
  processed: ProcessedEvents;
  mailpit: Mailpit;
  baseUrl: string;
  /** Events published while the harness runs, by type (core NATS sees JetStream publishes). */
  published: EventEnvelope[];
  close(): Promise<void>;
}

export async function startHarness(
  overrides: Partial<MailDeps> & { mailer?: Mailer } = {},
): Promise<Harness> {
  const logger = createLogger('mail-test', process.env.LOG_LEVEL ?? 'silent');
  const testStore = await openTestStore();
  const nc = await connectNats(infra.natsUrl, 'mail-it', logger);
  const bus = await JetStreamBus.create(nc, logger);
  const published: EventEnvelope[] = [];
  const sub = nc.subscribe('baas.events.mail.>');
  void (async () => {
    for await (const m of sub) published.push(m.json<EventEnvelope>());
  })();

  const mailer = new SmtpMailer({
    host: infra.smtpHost,
    port: infra.smtpPort,
    secure: false,
    maxConnections: 3,
    from: FROM,
  });
  const wired = await wireMail({
    store: testStore.store,
    publisher: bus,
    logger,
    mailer,
    limits: { defaultMonthly: 1000, systemDaily: 500, systemRecipientHourly: 10 },
    retry: { attempts: 3, baseDelayMs: 10 },
    envelopeKeys: [ENVELOPE_KEY],
    consoleUrl: CONSOLE_URL,
    relayIntervalMs: 200,
  });
  const deps: MailDeps = Object.assign(wired.deps, overrides);
  const svc = createApp({ logger, assertionPublicKey: ASSERTION_KEYS.publicKey, readiness: [], mail: deps });
  const server = http.createServer(svc.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    storeKind: testStore.store.kind,
    stored: testStore.stored,
    nc,
    bus,
    relay: wired.relay,
    deps,
    mailer,
    processed: wired.processed,
    mailpit: new Mailpit(infra.mailApiUrl),
    baseUrl: `http://127.0.0.1:${port}`,
    published,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      for (const c of wired.closers) await c.close();
      mailer.close();
      sub.unsubscribe();
      await testStore.drop().catch(() => undefined);
      await nc.drain();
    },
  };
}

/** 24 hex characters, the shape of project, message and template ids. */
export const randomHexId = (): string => randomBytes(12).toString('hex');

export const newProjectId = (): ProjectId => trustedProjectId(randomHexId());

export interface CallAs {
  projectId?: ProjectId;
  keyType?: KeyType;
  admin?: boolean;
  mailMonthly?: number;
}

/** Calls the app as the gateway would, with a signed assertion. */
export async function call(
  h: Pick<Harness, 'baseUrl'>,
  method: string,
  path: string,
  body: unknown,
  as: CallAs,
): Promise<{ status: number; body: any; headers: Headers }> {
  const claims = {
    requestId: `it-${Math.random().toString(36).slice(2)}`,
    admin: as.admin ?? false,
    ...(as.projectId ? { projectId: as.projectId } : {}),
    ...(as.keyType ? { keyType: as.keyType } : {}),
    ...(as.projectId
      ? {
          settings: {
            publicSignups: true,
            requireEmailVerification: false,
            limits: { storageBytes: 1, documents: 1, mailMonthly: as.mailMonthly ?? 1000 },
          },
        }
      : {}),
  };
  const assertion = await signAssertion(ASSERTION_KEYS.privateKey, 'mail', claims);
  const headers: Record<string, string> = { 'x-gateway-assertion': assertion };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
}

export const sendAs = (
  h: Pick<Harness, 'baseUrl'>,
  projectId: ProjectId,
  body: unknown,
  mailMonthly?: number,
) =>
  call(h, 'POST', '/api/mail/send', body, {
    projectId,
    keyType: 'secret',
    ...(mailMonthly !== undefined ? { mailMonthly } : {}),
  });

export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
