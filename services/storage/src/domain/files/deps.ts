import type { FileRepository, ObjectStore, QuotaLedger, SweepCursor } from '../../ports';

export interface FileDeps {
  files: FileRepository;
  quota: QuotaLedger;
  store: ObjectStore;
  limits: {
    maxFileBytes: number;
    /** Used when the project's settings carry no storage limit. */
    defaultQuotaBytes: number;
  };
  publicBaseUrl: string;
}

export interface SweepDeps extends FileDeps {
  cursor: SweepCursor;
}
