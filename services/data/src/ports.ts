import type { AccessTokenVerifier, EventEnvelope, ProjectId } from '@baas/common';
import type { CollectionDef } from './domain/collections/collection';
import type { DocumentId } from './domain/documents/document-id';
import type { Condition, DocumentQuery } from './domain/documents/query';
import type { Stage } from './domain/aggregation/validate-pipeline';

/**
 * A stored document in the domain's terms: `_id` a DocumentId, the system dates as Dates, the
 * other fields as JSON values (Date-typed schema fields as Dates). Store bookkeeping never shows.
 */
export type StoredDoc = Record<string, unknown> & {
  _id: DocumentId;
  isDeleted: boolean;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/** The registered collections of every project. */
export interface CollectionCatalogue {
  /** `fresh`: read the store, not the short per-process cache (for read-modify-write of a definition). */
  get(projectId: ProjectId, name: string, opts?: { fresh?: boolean }): Promise<CollectionDef | null>;
  list(projectId: ProjectId): Promise<CollectionDef[]>;
  /** Registers or replaces; true when it did not exist before. */
  save(def: CollectionDef, events: EventEnvelope[]): Promise<boolean>;
  remove(projectId: ProjectId, name: string, events: EventEnvelope[]): Promise<boolean>;
  removeProject(projectId: ProjectId): Promise<void>;
}

/** How much an aggregation may cost (documents read, rows returned, time). */
export interface AggregationBounds {
  maxInputDocuments: number;
  maxOutputRows: number;
  /** Documents any stage may hold at once (after $unwind, $lookup...), when evaluated in-process. */
  maxWorkingDocuments: number;
  /** Approximate memory of those documents. */
  maxWorkingBytes: number;
  timeMs: number;
}

export type InsertOutcome = 'inserted' | 'quota_exceeded';

/** One registered collection of one project. */
export interface DocumentCollection {
  /**
   * Inserts the document and its events, counting it against the project's document quota:
   * nothing is written when the project already holds `quotaLimit` documents (trash included).
   */
  insert(doc: StoredDoc, events: EventEnvelope[], quotaLimit: number): Promise<InsertOutcome>;
  findOne(where: Condition): Promise<StoredDoc | null>;
  find(query: DocumentQuery): Promise<StoredDoc[]>;
  count(where: Condition): Promise<number>;
  /**
   * A page of `find(query)` and the count of `query.where` (ignoring `after`, `skip` and `limit`),
   * read together (one round trip where the store allows).
   */
  findWithTotal(query: DocumentQuery): Promise<{ items: StoredDoc[]; total: number }>;
  /**
   * Sets the given paths (dot notation; system fields included) on the one document matching
   * `where`, with its events, in one atomic write. The document after, or null when none matched.
   */
  update(where: Condition, set: Record<string, unknown>, events: EventEnvelope[]): Promise<StoredDoc | null>;
  /**
   * Runs a validated client pipeline over the documents matching `scope(collection)` of this
   * collection and of every collection it joins (`joined`, all of this project).
   */
  aggregate(
    pipeline: Stage[],
    scope: (collection: string) => Condition,
    joined: ReadonlySet<string>,
    bounds: AggregationBounds,
  ): Promise<Record<string, unknown>[]>;
}

export interface ProjectDocuments {
  collection(name: string): DocumentCollection;
  /** Makes the store ready for a definition (indexes, unique constraints); DUPLICATE_VALUE if data violates it. */
  prepare(def: CollectionDef): Promise<void>;
  /** Removes every document of the collection, releasing their quota. */
  dropCollection(name: string): Promise<void>;
  /** Removes every document and the document counter of the project. */
  dropAll(): Promise<void>;
}

export interface PurgeResult {
  processed: number;
  more: boolean;
}

export interface DocumentStore {
  forProject(projectId: ProjectId): ProjectDocuments;
  /**
   * Hard-deletes up to `limit` documents trashed before `olderThan`, across every project, each
   * with the events `eventsFor` gives, releasing their quota. Costs what the pending work costs,
   * not what the number of collections costs.
   */
  purgeTrash(
    olderThan: Date,
    limit: number,
    eventsFor: (projectId: ProjectId, collection: string, id: DocumentId) => EventEnvelope[],
  ): Promise<PurgeResult>;
  /** The project's document count (quota), trash included. */
  documentCount(projectId: ProjectId): Promise<number>;
}

export interface DataLimits {
  defaultDocumentQuota: number;
  queryMaxTimeMs: number;
}

export interface DataDeps {
  catalogue: CollectionCatalogue;
  documents: DocumentStore;
  tokens: AccessTokenVerifier;
  limits: DataLimits;
  now?: () => Date;
}
