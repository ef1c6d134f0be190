import type { ObjectId } from 'mongodb';
import type { AccessTokenVerifier, EventEnvelope, ProjectId } from '@baas/common';
import type { CollectionDef } from './domain/collections/collection';

/** A stored document as the database holds it (dates as Date, _id as ObjectId). */
export type StoredDoc = Record<string, unknown> & { _id: ObjectId };
/** A query filter in the document database's syntax, always built server-side. */
export type Filter = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;

/** The registered collections of every project (database `baas_data`). */
export interface CollectionCatalogue {
  get(projectId: ProjectId, name: string): Promise<CollectionDef | null>;
  list(projectId: ProjectId): Promise<CollectionDef[]>;
  /** Registers or replaces; true when it did not exist before. */
  save(def: CollectionDef, events: EventEnvelope[]): Promise<boolean>;
  remove(projectId: ProjectId, name: string, events: EventEnvelope[]): Promise<boolean>;
  removeProject(projectId: ProjectId): Promise<void>;
  /** Every registered collection of every project (outbox relay, janitor). */
  all(): Promise<Array<{ projectId: ProjectId; name: string }>>;
}

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  maxTimeMS?: number;
}

/** One registered collection of one project. */
export interface DocumentCollection {
  insert(doc: StoredDoc, events: EventEnvelope[]): Promise<StoredDoc>;
  findOne(filter: Filter): Promise<StoredDoc | null>;
  find(filter: Filter, opts: FindOptions): Promise<StoredDoc[]>;
  count(filter: Filter, maxTimeMS: number): Promise<number>;
  /** `$set` of the given paths on the one matching document; the document after, or null. */
  update(filter: Filter, set: Record<string, unknown>, events: EventEnvelope[]): Promise<StoredDoc | null>;
  /** Marks the matching document for deletion once its events are published. */
  purge(filter: Filter, events: EventEnvelope[]): Promise<boolean>;
  aggregate(pipeline: Record<string, unknown>[], maxTimeMS: number): Promise<Record<string, unknown>[]>;
}

/** A project's documents live in a database of their own (physical isolation). */
export interface ProjectDocuments {
  collection(name: string): DocumentCollection;
  /** Creates the indexes a collection definition needs, dropping unique indexes it no longer has. */
  prepare(def: CollectionDef): Promise<void>;
  /** Drops a collection; returns how many documents it held. */
  dropCollection(name: string): Promise<number>;
  dropAll(): Promise<void>;
}

export interface DocumentStore {
  forProject(projectId: ProjectId): ProjectDocuments;
}

/** Per-project document count quota, reserved before an insert and released on purge. */
export interface DocumentQuota {
  reserve(projectId: ProjectId, limit: number): Promise<boolean>;
  release(projectId: ProjectId, count: number): Promise<void>;
  drop(projectId: ProjectId): Promise<void>;
}

/** Asks the outbox relay to publish a document's pending events now (failures retried later). */
export interface OutboxNotifier {
  afterWrite(projectId: ProjectId, collection: string, id: ObjectId): void;
}

export interface DataLimits {
  defaultDocumentQuota: number;
  queryMaxTimeMs: number;
}

export interface DataDeps {
  catalogue: CollectionCatalogue;
  documents: DocumentStore;
  quota: DocumentQuota;
  outbox: OutboxNotifier;
  tokens: AccessTokenVerifier;
  limits: DataLimits;
  now?: () => Date;
}
