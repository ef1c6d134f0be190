import type { Readable } from 'node:stream';
import { errors } from '@baas/common';
import type { FileDeps } from './deps';
import { parseFilePath, sanitizeExtension } from './file-path';
import { servingHeaders } from './content-type';

export interface PublicFile {
  headers: Record<string, string>;
  size: number;
  /** Opens the object; null when it vanished after the metadata was read. */
  open: () => Promise<Readable | null>;
}

const notFound = () => errors.notFound('FILE_NOT_FOUND', 'File not found');

/** Every uploaded file is public: found by its path, served only once its upload completed. */
export async function readPublicFile(deps: FileDeps, projectId: string, name: string): Promise<PublicFile> {
  const parsed = parseFilePath(`${projectId}/${name}`);
  if (!parsed) throw notFound();
  const rec = await deps.files.findComplete(parsed.projectId, parsed.path);
  if (!rec) throw notFound();
  return {
    headers: servingHeaders(rec.contentType, sanitizeExtension(parsed.name), rec.originalName),
    size: rec.size,
    open: () => deps.store.get(parsed.path),
  };
}
