import type { ProjectId } from '@baas/common';
import type { DataDeps } from '../../ports';

export interface DocumentUsage {
  /** Documents the project holds, trash included (what the quota counts). */
  documents: number;
  /** The project's document quota (`settings.limits.documents`, else DEFAULT_DOCUMENT_QUOTA). */
  limit: number;
}

/** The project's document count against its quota, from the data service's own counter. */
export async function documentUsage(
  deps: DataDeps,
  projectId: ProjectId,
  quota: number | undefined,
): Promise<DocumentUsage> {
  return {
    documents: await deps.documents.documentCount(projectId),
    limit: quota ?? deps.limits.defaultDocumentQuota,
  };
}
