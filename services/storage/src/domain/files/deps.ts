import type { AccessTokenVerifier } from '@baas/common';
import type { FileRepository, ObjectStore, QuotaLedger, SweepCursor, UploadObserver } from '../../ports';

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
  /**
   * Verifies a Bearer token sent with a storage call (with the revocation list). The key alone
   * authorizes storage; a token that is sent must be valid, so an ended session is refused.
   */
  tokens?: AccessTokenVerifier;
  /** Counts uploads by outcome and the bytes stored (metrics); none in tests that do not look. */
  observer?: UploadObserver;
}

export interface SweepDeps extends FileDeps {
  cursor: SweepCursor;
}
