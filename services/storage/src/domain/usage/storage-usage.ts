import type { ProjectId } from '@baas/common';
import type { FileDeps } from '../files/deps';

export interface StorageUsage {
  /** Bytes the project's files take (uploads in progress included: their bytes are reserved). */
  bytes: number;
  /** The project's storage quota (`settings.limits.storageBytes`, else DEFAULT_STORAGE_QUOTA_BYTES). */
  limit: number;
}

/** The project's stored bytes against its quota, from the storage service's own ledger. */
export async function storageUsage(
  deps: FileDeps,
  projectId: ProjectId,
  quota: number | undefined,
): Promise<StorageUsage> {
  return { bytes: await deps.quota.used(projectId), limit: quota ?? deps.limits.defaultQuotaBytes };
}
