import { ObjectId, type Collection, type Document } from 'mongodb';
import { RelayLoop, type Logger } from '@baas/common';
import type { OutboxRelay } from '@baas/common/mongo';
import type { MongoPendingIndex } from './pending-index';

/**
 * The data service's periodic outbox pass on MongoDB: the catalogue's pending events (one
 * collection) and the documents the pending index names, not every collection of every project.
 */
export class MarkedOutboxRelay extends RelayLoop {
  constructor(
    /** Relays the catalogue and single documents (the kernel's MongoDB relay). */
    private readonly inner: OutboxRelay,
    private readonly pending: MongoPendingIndex,
    private readonly collectionOf: (projectId: string, name: string) => Collection<Document>,
    logger: Logger,
    intervalMs: number,
    private readonly batchSize = 200,
  ) {
    super(logger, intervalMs);
  }

  /**
   * The documents the relay still has to visit (a marker is dropped up to a minute after its
   * events went out); the catalogue's few pending events are not counted.
   */
  protected override async backlog(): Promise<number> {
    return this.pending.outboxCount(100_000);
  }

  protected async pass(): Promise<void> {
    await this.inner.flush();
    const now = new Date();
    for (const p of await this.pending.outboxBatch(this.batchSize)) {
      const coll = this.collectionOf(p.projectId, p.collection);
      const _id = new ObjectId(p.id);
      await this.inner.relayOne(coll, _id);
      const left = await coll.findOne({ _id, _outbox: { $exists: true } }, { projection: { _id: 1 } });
      if (!left) await this.pending.settleOutbox(p, now);
    }
  }
}
