import type { MongoClient } from 'mongodb';
import { connectMongo } from '../../src/mongo';
import { describeOnStore, infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';

/** The client every service uses carries the majority concerns down to each collection, and the store accepts them. */
describeOnStore('mongodb', 'MongoDB client concerns (connectMongo)', () => {
  let client: MongoClient;
  const dbName = uniqueDbName('concerns');

  beforeAll(async () => {
    await requireInfra('mongo');
    client = await connectMongo(infra.mongoUrl, 'concerns-test');
  });
  afterAll(async () => {
    await client?.db(dbName).dropDatabase();
    await client?.close();
  });

  it('inherits w: majority (journaled) and read concern majority in every database and collection', () => {
    const coll = client.db(dbName).collection('things');
    expect(coll.writeConcern).toMatchObject({ w: 'majority', journal: true });
    expect(coll.readConcern?.level).toBe('majority');
  });

  it('writes, updates and reads back with those concerns on the store under test', async () => {
    const coll = client.db(dbName).collection<{ _id: string; n: number }>('things');
    const ins = await coll.insertOne({ _id: 'a', n: 1 });
    expect(ins.acknowledged).toBe(true);
    const upd = await coll.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'after' });
    expect(upd?.n).toBe(2);
    expect(await coll.find({}).toArray()).toEqual([{ _id: 'a', n: 2 }]);
    expect(await coll.aggregate([{ $match: { n: 2 } }, { $count: 'c' }]).toArray()).toEqual([{ c: 1 }]);
  });
});
