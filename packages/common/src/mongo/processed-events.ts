import type { Collection, Db } from 'mongodb';
import type { ProcessedEvents } from '../events/idempotency';

interface ProcessedDoc {
  _id: string;
  at: Date;
}

export class MongoProcessedEvents implements ProcessedEvents {
  private readonly coll: Collection<ProcessedDoc>;
  constructor(db: Db) {
    this.coll = db.collection<ProcessedDoc>('processed_events');
  }

  async claim(consumer: string, eventId: string): Promise<boolean> {
    try {
      await this.coll.insertOne({ _id: `${consumer}:${eventId}`, at: new Date() });
      return true;
    } catch (e) {
      if ((e as { code?: number }).code === 11000) return false;
      throw e;
    }
  }

  async release(consumer: string, eventId: string): Promise<void> {
    await this.coll.deleteOne({ _id: `${consumer}:${eventId}` });
  }
}
