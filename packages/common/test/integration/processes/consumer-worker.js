// A consumer process for the kill test (issue 12, item 9), run from the built @baas/common.
// It consumes project.deleted on DURABLE with an idempotent handler over the store STORE_URL
// names (postgres:// or mongodb://, with STORE_DB for MongoDB) and prints one line per step:
//   ready                 the consumer is pulling
//   claimed <event id>    the handler holds the claim (MODE=hang: it then never returns)
//   effect <event id>     the handler's effect happened (MODE=work)
// each followed by a tab and this process's clock (ms) when it happened, so that the test times the
// steps as they happened, not as its own polling saw them.
'use strict';
const { connectNats, createLogger, idempotent, JetStreamBus } = require('@baas/common');

const { NATS_URL, STORE_URL, STORE_DB, DURABLE, PROJECT_ID, MODE } = process.env;
const logger = createLogger('consumer-worker', 'silent');
const say = (line) => process.stdout.write(`${line}\t${Date.now()}\n`);

async function processedEvents() {
  if (STORE_URL.startsWith('postgres')) {
    const { connectPostgres, PgProcessedEvents } = require('@baas/common/postgres');
    return new PgProcessedEvents(await connectPostgres(STORE_URL, 'consumer-worker', logger));
  }
  const { MongoClient } = require('mongodb');
  const { MongoProcessedEvents } = require('@baas/common/mongo');
  const client = await MongoClient.connect(STORE_URL);
  return new MongoProcessedEvents(client.db(STORE_DB));
}

async function main() {
  const processed = await processedEvents();
  const nc = await connectNats(NATS_URL, 'consumer-worker', logger);
  const bus = await JetStreamBus.create(nc, logger);
  await bus.consume({
    durable: DURABLE,
    types: ['project.deleted'],
    ackWaitMs: 1000,
    concurrency: 1,
    inactiveThresholdMs: 60_000,
    handler: idempotent(processed, DURABLE, async (event) => {
      if (event.projectId !== PROJECT_ID) return;
      say(`claimed ${event.id}`);
      if (MODE === 'hang') return new Promise(() => undefined);
      say(`effect ${event.id}`);
    }),
  });
  say('ready');
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
