import { MongoClient, type Db } from 'mongodb';
import { MongoLocks } from '../../src';
import { infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';

let mongo: MongoClient;
let db: Db;

beforeAll(async () => {
  await requireInfra('mongo');
  mongo = await MongoClient.connect(infra.mongoUrl, { maxPoolSize: 50 });
  db = mongo.db(uniqueDbName('locks'));
});
afterAll(async () => mongo?.close());

/** A read-modify-write that loses updates without mutual exclusion (on FerretDB even per document). */
async function increment(counter: string): Promise<void> {
  const c = db.collection<{ _id: string; n: number }>('counters');
  const doc = await c.findOne({ _id: counter });
  await new Promise((r) => setTimeout(r, 1));
  await c.updateOne({ _id: counter }, { $set: { n: (doc?.n ?? 0) + 1 } }, { upsert: true });
}

describe('MongoLocks (real database)', () => {
  it('serialises critical sections across independent lock managers (as across processes)', async () => {
    const managers = [new MongoLocks(db), new MongoLocks(db), new MongoLocks(db)];
    await Promise.all(Array.from({ length: 45 }, (_, i) => managers[i % 3]!.withLock('k1', () => increment('k1'))));
    expect((await db.collection('counters').findOne({ _id: 'k1' as never }))?.n).toBe(45);
  });

  it('does not block other keys and releases the lock when the section throws', async () => {
    const locks = new MongoLocks(db);
    await expect(locks.withLock('k2', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(locks.withLock('k2', async () => 'again')).resolves.toBe('again');
    expect(await db.collection('locks').countDocuments({})).toBe(0);
  });

  it('takes over a lock whose holder died once it expires', async () => {
    await db.collection('locks').insertOne({ _id: 'k3' as never, token: 'dead', expiresAt: new Date(Date.now() + 200) });
    const started = Date.now();
    await new MongoLocks(db, { maxWaitMs: 2000 }).withLock('k3', async () => undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('answers 503 when the lock cannot be had in time', async () => {
    await db.collection('locks').insertOne({ _id: 'k4' as never, token: 'busy', expiresAt: new Date(Date.now() + 60_000) });
    await expect(new MongoLocks(db, { maxWaitMs: 100 }).withLock('k4', async () => undefined)).rejects.toMatchObject({ status: 503 });
  });
});
