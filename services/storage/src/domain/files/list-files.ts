import { timeKeysetPage, type AdminPage, type ProjectId, type TimeKeysetRequest } from '@baas/common';
import type { FileRecord } from '../../ports';
import type { FileDeps } from './deps';
import { publicUrl } from './file-events';

/** A stored file as the admin API shows it. */
export interface FileView {
  /** The generated name: the last segment of `path`, what `DELETE .../files/{name}` takes. */
  name: string;
  path: string;
  /** The client's file name, sanitised (never part of the path). */
  originalName: string;
  size: number;
  contentType: string;
  createdAt: string;
  url: string;
}

function fileView(deps: FileDeps, f: FileRecord): FileView {
  return {
    name: f.path.slice(f.path.indexOf('/') + 1),
    path: f.path,
    originalName: f.originalName,
    size: f.size,
    contentType: f.contentType,
    createdAt: f.createdAt.toISOString(),
    url: publicUrl(deps, f.path),
  };
}

/** One page of a project's stored files, newest first (uploads in progress are not listed). */
export async function listFiles(
  deps: FileDeps,
  projectId: ProjectId,
  req: TimeKeysetRequest,
): Promise<AdminPage<FileView>> {
  const rows = await deps.files.listComplete(projectId, {
    limit: req.limit + 1,
    before: req.before,
  });
  return timeKeysetPage(
    rows,
    req,
    (f) => ({ at: f.createdAt, id: f.path }),
    (f) => fileView(deps, f),
  );
}
