import type { Collection, Db } from 'mongodb';
import type { SigningKeyRepository } from '../ports';
import type { StoredSigningKey } from '../domain/keys/signing-key';

interface KeyDoc extends Omit<StoredSigningKey, 'kid'> {
  _id: string;
}

export class MongoSigningKeyRepository implements SigningKeyRepository {
  readonly coll: Collection<KeyDoc>;
  constructor(db: Db) {
    this.coll = db.collection<KeyDoc>('signing_keys');
  }

  async list(): Promise<StoredSigningKey[]> {
    const docs = await this.coll.find({}).sort({ createdAt: 1 }).toArray();
    return docs.map(({ _id, ...rest }) => ({ ...rest, kid: _id }));
  }

  async insert(key: StoredSigningKey): Promise<void> {
    const { kid, ...rest } = key;
    await this.coll.insertOne({ _id: kid, ...rest });
  }

  async markRetiring(exceptKid: string, at: Date): Promise<void> {
    await this.coll.updateMany(
      { status: 'active', _id: { $ne: exceptKid } },
      { $set: { status: 'retiring', retiringAt: at } },
    );
  }

  async retireRetiringBefore(cutoff: Date, at: Date): Promise<number> {
    const r = await this.coll.updateMany(
      { status: 'retiring', retiringAt: { $lt: cutoff } },
      { $set: { status: 'retired', retiredAt: at } },
    );
    return r.modifiedCount;
  }
}
