import type { Readable } from 'node:stream';
import type { EventEnvelope, ProjectId, TimeKeyset } from '@baas/common';

/** Where file bytes live. Keys are file paths `<projectId>/<name>`; implementations: S3 and local disk. */
export interface ObjectStore {
  /** The `provider` reported to clients (`s3`, `local`). */
  readonly provider: string;
  /** Fails when the store itself is unusable (bucket or directory missing, no access). */
  ping(): Promise<void>;
  /**
   * Streams `body` to `key`. When the body errors or the write fails it rejects and leaves no
   * object at `key` (callers still delete it afterwards, for the crash-free belt and braces).
   */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** A stream of the object, or null when it does not exist. */
  get(key: string): Promise<Readable | null>;
  exists(key: string): Promise<boolean>;
  /** Idempotent: deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** Objects in key order after `startAfter`, at most `limit`; `done` when the listing is exhausted. */
  list(opts: {
    prefix?: string;
    startAfter?: string;
    limit: number;
  }): Promise<{ items: StoredObject[]; done: boolean }>;
}

export interface StoredObject {
  key: string;
  lastModified: Date;
}

export type FileStatus = 'pending' | 'complete';

/** File metadata: the record of truth for what exists. Objects without one are orphans. */
export interface FileRecord {
  path: string;
  projectId: ProjectId;
  status: FileStatus;
  contentType: string;
  /** The client's file name, sanitised, kept for Content-Disposition only. */
  originalName: string;
  size: number;
  /** Quota bytes reserved while the upload streams (released by the sweep after a crash). */
  reserved: number;
  createdAt: Date;
  /** Set by the orphan sweep when it first found the object gone (a second sighting deletes). */
  missingSince?: Date;
}

export interface FileRepository {
  insertPending(rec: FileRecord): Promise<void>;
  addReserved(projectId: ProjectId, path: string, bytes: number): Promise<void>;
  /** pending -> complete with the event, in one write; false when the record is gone. */
  complete(projectId: ProjectId, path: string, size: number, events: EventEnvelope[]): Promise<boolean>;
  /** Removes a record (any status) without an event: failed uploads and sweeps. */
  remove(projectId: ProjectId, path: string): Promise<void>;
  findComplete(projectId: ProjectId, path: string): Promise<FileRecord | null>;
  /** Complete files, newest first by (createdAt, path), after `before` when given. */
  listComplete(projectId: ProjectId, page: { limit: number; before?: TimeKeyset }): Promise<FileRecord[]>;
  /** complete -> gone, atomically, with the event; null when there was no complete record. */
  deleteComplete(projectId: ProjectId, path: string, events: EventEnvelope[]): Promise<FileRecord | null>;
  /** Whether any record (any status) exists for this path. */
  exists(projectId: ProjectId, path: string): Promise<boolean>;
  deleteAllOfProject(projectId: ProjectId): Promise<number>;
  /** Janitor: uploads left pending since before `olderThan` (a crash mid-upload). */
  stalePending(olderThan: Date, limit: number): Promise<FileRecord[]>;
  /** Janitor: complete records not checked against the store since `olderThan`. */
  unverified(olderThan: Date, limit: number): Promise<FileRecord[]>;
  /** The object was found: checked at `at`, and no longer counted missing. */
  markVerified(projectId: ProjectId, path: string, at: Date): Promise<void>;
  /** The object was not found at `at`: remembers the first sighting (`missingSince`). */
  markMissing(projectId: ProjectId, path: string, at: Date): Promise<void>;
}

/** Per-project byte usage; reservations are conditional so parallel uploads cannot overshoot. */
export interface QuotaLedger {
  /** Adds `bytes` only if usage stays <= `limit`; false otherwise. */
  reserve(projectId: ProjectId, bytes: number, limit: number): Promise<boolean>;
  release(projectId: ProjectId, bytes: number): Promise<void>;
  used(projectId: ProjectId): Promise<number>;
  drop(projectId: ProjectId): Promise<void>;
}

/** Cursor of the orphan-object scan, kept between janitor calls. */
export interface SweepCursor {
  get(): Promise<string | undefined>;
  set(after: string | undefined): Promise<void>;
}

/** How an upload ended: stored, over the file size limit, over the project's quota, or failed. */
export type UploadOutcome = 'stored' | 'too_large' | 'quota_exceeded' | 'failed';

/** What uploads report for metrics. */
export interface UploadObserver {
  /** `bytes`: the size of a stored file (0 otherwise). */
  uploaded(outcome: UploadOutcome, bytes: number): void;
}
