import { Redis } from 'ioredis';
import type { MongoClient } from 'mongodb';
import { createMetrics, dependencyMetrics, instrumentRedis, type Metrics } from '../../src';
import { createPostgresPool, checkOut, type Pool } from '../../src/postgres';
import { closeMongo, connectMongo } from '../../src/mongo';
import { createLogger } from '../../src/logger';
import { describeOnStore, infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';
import { bareDatabase } from './pg-support';
import { dependencyCallCounts } from '../../../../test/support/dependency-metrics';

const logger = createLogger('dependency-metrics-test', 'silent');

/** Promise reactions (the instrumentation records in one) have run. */
const settled = () => new Promise((r) => setImmediate(r));

describe('dependency metrics on PostgreSQL (the pool every service uses)', () => {
  let db: { url: string; drop: () => Promise<void> };
  let pool: Pool;
  let metrics: Metrics;

  beforeAll(async () => {
    db = await bareDatabase('depmetrics');
    metrics = createMetrics('test');
    pool = createPostgresPool(
      db.url,
      'dependency-metrics-test',
      logger,
      { statement_timeout: 200 },
      dependencyMetrics(metrics),
    );
    await pool.query('CREATE TABLE t (id int PRIMARY KEY)');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('times statements from the pool and from checked-out clients, by verb and outcome', async () => {
    const before = await dependencyCallCounts(metrics, 'postgresql');
    await pool.query('INSERT INTO t VALUES (1)');
    await pool.query({
      name: 'dependency-metrics-read',
      text: 'SELECT id FROM t WHERE id = $1',
      values: [1],
    });
    // a unique violation: the database is fine, the statement was refused
    await expect(pool.query('INSERT INTO t VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    // canceled by statement_timeout (200 ms): the database did not answer in time
    await expect(pool.query('SELECT pg_sleep(1)')).rejects.toMatchObject({ code: '57014' });
    const c = await checkOut(pool);
    try {
      await c.client.query('BEGIN');
      await c.client.query('UPDATE t SET id = 2 WHERE id = 1');
      await c.client.query('COMMIT');
    } finally {
      c.release();
    }
    await settled();
    const after = await dependencyCallCounts(metrics, 'postgresql');
    const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    expect({
      insertOk: delta('INSERT|ok'),
      selectOk: delta('SELECT|ok'),
      insertRejected: delta('INSERT|rejected'),
      selectFailed: delta('SELECT|failed'),
      begin: delta('BEGIN|ok'),
      update: delta('UPDATE|ok'),
      commit: delta('COMMIT|ok'),
    }).toEqual({
      insertOk: 1,
      selectOk: 1,
      insertRejected: 1,
      selectFailed: 1,
      begin: 1,
      update: 1,
      commit: 1,
    });
  });

  it('times the connection’s first statement too (instrumented before it is handed out)', async () => {
    const m = createMetrics('test');
    const fresh = createPostgresPool(db.url, 'dependency-metrics-first', logger, {}, dependencyMetrics(m));
    try {
      await fresh.query('SELECT 1');
      await settled();
      expect(await dependencyCallCounts(m, 'postgresql')).toEqual({ 'SELECT|ok': 1 });
    } finally {
      await fresh.end();
    }
  });
});

describe('dependency metrics on Redis (ioredis, auto-pipelined as the gateway and auth use it)', () => {
  let redis: Redis;
  let metrics: Metrics;

  beforeAll(async () => {
    await requireInfra('redis');
    metrics = createMetrics('test');
    redis = instrumentRedis(
      new Redis(infra.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 0 }),
      dependencyMetrics(metrics),
    );
    await redis.ping();
  });
  afterAll(() => redis?.disconnect());

  it('times single, auto-pipelined and pipelined commands, and a refused one as rejected', async () => {
    const before = await dependencyCallCounts(metrics, 'redis');
    const key = `baas:test:depmetrics:${uniqueDbName('k')}`;
    await Promise.all([redis.set(key, '1', 'EX', 60), redis.incr(key), redis.incr(key)]);
    await redis.pipeline().get(key).del(key).exec();
    // INCR of a value that is not a number: the server refuses it (ReplyError)
    await redis.set(key, 'text', 'EX', 60);
    await expect(redis.incr(key)).rejects.toThrow(/not an integer/);
    await redis.del(key);
    await settled();
    const after = await dependencyCallCounts(metrics, 'redis');
    const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    expect({
      set: delta('set|ok'),
      incr: delta('incr|ok'),
      get: delta('get|ok'),
      del: delta('del|ok'),
      refused: delta('incr|rejected'),
    }).toEqual({ set: 2, incr: 2, get: 1, del: 2, refused: 1 });
  });

  it('counts a command that cannot reach the server as failed', async () => {
    const m = createMetrics('test');
    const down = instrumentRedis(
      new Redis('redis://127.0.0.1:1', {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      }),
      dependencyMetrics(m),
    );
    try {
      await expect(down.get('k')).rejects.toThrow();
      await settled();
      expect(await dependencyCallCounts(m, 'redis')).toEqual({ 'get|failed': 1 });
    } finally {
      down.disconnect();
    }
  });
});

describeOnStore('mongodb', 'dependency metrics on MongoDB (command monitoring of connectMongo)', () => {
  let client: MongoClient;
  let metrics: Metrics;
  const dbName = uniqueDbName('depmetrics');

  beforeAll(async () => {
    await requireInfra('mongo');
    metrics = createMetrics('test');
    client = await connectMongo(
      infra.mongoUrl,
      'dependency-metrics-test',
      logger,
      dependencyMetrics(metrics),
    );
  });
  afterAll(async () => {
    await client?.db(dbName).dropDatabase();
    if (client) await closeMongo(client);
  });

  it('times each command by name, a duplicate key as rejected', async () => {
    const coll = client.db(dbName).collection<{ _id: string }>('things');
    const before = await dependencyCallCounts(metrics, 'mongodb');
    await coll.insertOne({ _id: 'a' });
    await expect(coll.insertOne({ _id: 'a' })).rejects.toMatchObject({ code: 11000 });
    await coll.find({}).toArray();
    await settled();
    const after = await dependencyCallCounts(metrics, 'mongodb');
    const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    expect({
      insert: delta('insert|ok'),
      duplicate: delta('insert|rejected'),
      find: delta('find|ok'),
    }).toEqual({
      insert: 1,
      duplicate: 1,
      find: 1,
    });
  });
});
