import type { Collection, MongoClient } from 'mongodb';
import { type AccessTokenVerifier, type EventPublisher, type Logger } from '@baas/common';
import { OutboxRelay } from '@baas/common/mongo';
import type { DataDeps, DataLimits } from './ports';
import { KeyedMutex } from '@baas/common';
import { MongoCollectionCatalogue } from './adapters/mongo-catalogue';
import { MongoDocumentStore } from './adapters/mongo-documents';
import { MongoDocumentQuota } from './adapters/mongo-quota';

export interface Wiring {
  deps: DataDeps;
  relay: OutboxRelay;
  catalogue: MongoCollectionCatalogue;
  store: MongoDocumentStore;
  quota: MongoDocumentQuota;
}

/** The real adapters around one Mongo client; shared by main.ts and the integration tests. */
export async function wireData(opts: {
  mongo: MongoClient;
  dbName: string;
  tokens: AccessTokenVerifier;
  publisher: EventPublisher;
  logger: Logger;
  limits: DataLimits;
  outboxIntervalMs?: number;
}): Promise<Wiring> {
  const locks = new KeyedMutex();
  const db = opts.mongo.db(opts.dbName);
  const catalogue = new MongoCollectionCatalogue(db, locks);
  await catalogue.ensureIndexes();
  const store = new MongoDocumentStore(opts.mongo, opts.dbName, locks);
  const quota = new MongoDocumentQuota(db, locks);
  const relay = new OutboxRelay({
    collections: async () => [
      catalogue.coll as unknown as Collection,
      ...(await catalogue.all()).map(({ projectId, name }) =>
        store.forProject(projectId).mongoCollection(name),
      ),
    ],
    publisher: opts.publisher,
    logger: opts.logger,
    intervalMs: opts.outboxIntervalMs ?? 10_000,
  });
  const deps: DataDeps = {
    catalogue,
    documents: store,
    quota,
    tokens: opts.tokens,
    limits: opts.limits,
    outbox: {
      afterWrite: (projectId, collection, id) => {
        void relay.relayOne(store.forProject(projectId).mongoCollection(collection), id);
      },
    },
  };
  return { deps, relay, catalogue, store, quota };
}
