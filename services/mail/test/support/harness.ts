import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ObjectId, type Db, type MongoClient } from 'mongodb';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  assertionKey,
  connectNats,
  createLogger,
  JetStreamBus,
  signAssertion,
  trustedProjectId,
  type EventEnvelope,
  type KeyType,
  type ProjectId,
} from '@baas/common';
import { connectMongo, MongoProcessedEvents, OutboxRelay } from '@baas/common/mongo';
import { infra, uniqueDbName } from '../../../../test/support/infra';
import { createApp } from '../../src/app';
import { MongoTemplateRepository } from '../../src/adapters/mongo-template-repository';
import { MongoMessageRepository, objectIdGenerator } from '../../src/adapters/mongo-message-repository';
import { MongoUsageCounter } from '../../src/adapters/mongo-usage-counter';
import { SmtpMailer } from '../../src/adapters/smtp-mailer';
import type { MailDeps } from '../../src/domain/deps';
import type { Mailer } from '../../src/ports';
import { Mailpit } from './mailpit';

export const SECRET = 'integration-test-assertion-secret-0123456789';
export const FROM = 'BaaS Test <no-reply@baas.local>';

export interface Harness {
  mongo: MongoClient;
  db: Db;
  nc: NatsConnection;
  bus: JetStreamBus;
  relay: OutboxRelay;
  deps: MailDeps;
  mailer: SmtpMailer;
  processed: MongoProcessedEvents;
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
  const mongo = await connectMongo(infra.mongoUrl, 'mail-it');
  const db = mongo.db(uniqueDbName('mail_it'));
  const nc = await connectNats(infra.natsUrl, 'mail-it', logger);
  const bus = await JetStreamBus.create(nc, logger);
  const published: EventEnvelope[] = [];
  const sub = nc.subscribe('baas.events.mail.>');
  void (async () => {
    for await (const m of sub) published.push(m.json<EventEnvelope>());
  })();

  const templates = new MongoTemplateRepository(db);
  const usage = new MongoUsageCounter(db);
  const relay = new OutboxRelay({
    collections: () => [db.collection('messages')],
    publisher: bus,
    logger,
    intervalMs: 200,
  });
  const messages = new MongoMessageRepository(db, (id) => void relay.relayOne(db.collection('messages'), id));
  await Promise.all([templates.ensureIndexes(), usage.ensureIndexes(), messages.ensureIndexes()]);
  relay.start();
  const mailer = new SmtpMailer({
    host: infra.smtpHost,
    port: infra.smtpPort,
    secure: false,
    maxConnections: 3,
    from: FROM,
  });
  const deps: MailDeps = {
    templates,
    messages,
    usage,
    mailer,
    ids: objectIdGenerator,
    logger,
    limits: { defaultMonthly: 1000, systemDaily: 500, systemRecipientHourly: 10 },
    retry: { attempts: 3, baseDelayMs: 10 },
    now: () => new Date(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    ...overrides,
  };
  const svc = createApp({ logger, assertionSecret: SECRET, readiness: [], mail: deps });
  const server = http.createServer(svc.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    mongo,
    db,
    nc,
    bus,
    relay,
    deps,
    mailer,
    processed: new MongoProcessedEvents(db),
    mailpit: new Mailpit(infra.mailApiUrl),
    baseUrl: `http://127.0.0.1:${port}`,
    published,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await relay.stop();
      mailer.close();
      sub.unsubscribe();
      await db.dropDatabase().catch(() => undefined);
      await nc.drain();
      await mongo.close();
    },
  };
}

export const newProjectId = (): ProjectId => trustedProjectId(new ObjectId().toHexString());

export interface CallAs {
  projectId?: ProjectId;
  keyType?: KeyType;
  admin?: boolean;
  mailMonthly?: number;
}

/** Calls the app as the gateway would, with a signed assertion. */
export async function call(
  h: Harness,
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
  const assertion = await signAssertion(assertionKey(SECRET), 'mail', claims);
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

export const sendAs = (h: Harness, projectId: ProjectId, body: unknown, mailMonthly?: number) =>
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
