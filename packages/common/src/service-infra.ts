import type { Db, MongoClient } from 'mongodb';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from './logger';
import type { ReadinessCheck } from './http/bootstrap';
import { connectMongo, mongoReadiness } from './mongo';
import { connectNats, JetStreamBus } from './events/bus';

export interface Closer {
  name: string;
  close: () => Promise<void>;
}

export interface ServiceInfra {
  mongo: MongoClient;
  /** The service's own database (MONGO_DB). */
  db: Db;
  nc: NatsConnection;
  bus: JetStreamBus;
  /** Readiness of the service's own dependencies: its database and NATS. */
  readiness: ReadinessCheck[];
  /** Close after the service's own closers: NATS drained, then the database. */
  closers: Closer[];
}

/**
 * What every data-owning service connects to at boot: its database, NATS, and the JetStream
 * event streams (created or updated idempotently).
 */
export async function connectServiceInfra(
  service: string,
  config: { MONGO_URL: string; MONGO_DB: string; NATS_URL: string; NATS_STREAM_REPLICAS: number },
  logger: Logger,
): Promise<ServiceInfra> {
  const mongo = await connectMongo(config.MONGO_URL, `baas-${service}`);
  const db = mongo.db(config.MONGO_DB);
  const nc = await connectNats(config.NATS_URL, `baas-${service}`, logger);
  const bus = await JetStreamBus.create(nc, logger, { replicas: config.NATS_STREAM_REPLICAS });
  return {
    mongo,
    db,
    nc,
    bus,
    readiness: [mongoReadiness(db), natsReadiness(nc)],
    closers: [
      { name: 'nats', close: () => nc.drain() },
      { name: 'mongo', close: () => mongo.close() },
    ],
  };
}

export function natsReadiness(nc: NatsConnection): ReadinessCheck {
  return { name: 'nats', check: async () => void (await nc.flush()) };
}

/** Runs a service's main; a failure at boot (bad config, unreachable dependency) exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
