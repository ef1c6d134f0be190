import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { isAppError } from '@baas/common';
import type { UploadOutcome } from '../../ports';
import type { FileDeps } from './deps';
import { generateFileName, sanitizeExtension, sanitizeOriginalName } from './file-path';
import { decideContentType, SNIFF_BYTES } from './content-type';
import { peekHead } from './peek-head';
import { UploadMeter } from './upload-meter';
import { fileEvents, publicUrl, type FileChangeContext } from './file-events';

export interface UploadContext extends FileChangeContext {
  /** settings.limits.storageBytes from the gateway, when present. */
  quotaBytes?: number;
}

export interface UploadInput {
  body: Readable;
  filename?: string;
  mimeType?: string;
}

export interface UploadResult {
  message: string;
  url: string;
  path: string;
  provider: string;
}

/**
 * Stores one uploaded file. The metadata is written `pending` before a byte reaches the store
 * and completed (with `file.uploaded`) after, so an object never exists without a record except
 * after a crash, which the orphan sweep repairs. Any failure removes the object, the record and
 * the reservation before the error goes back to the client.
 */
export async function uploadFile(
  deps: FileDeps,
  ctx: UploadContext,
  input: UploadInput,
): Promise<UploadResult> {
  const name = generateFileName(input.filename);
  const path = `${ctx.projectId}/${name}`;
  // The type is decided from the first bytes too, before anything is written.
  let peeked: Awaited<ReturnType<typeof peekHead>>;
  try {
    peeked = await peekHead(input.body, SNIFF_BYTES);
  } catch (e) {
    deps.observer?.uploaded(uploadOutcome(e), 0);
    throw e;
  }
  const contentType = decideContentType(input.mimeType, sanitizeExtension(name), peeked.head);
  await deps.files.insertPending({
    path,
    projectId: ctx.projectId,
    status: 'pending',
    contentType,
    originalName: sanitizeOriginalName(input.filename),
    size: 0,
    reserved: 0,
    createdAt: new Date(),
  });
  const meter = new UploadMeter({
    projectId: ctx.projectId,
    maxBytes: deps.limits.maxFileBytes,
    quotaBytes: ctx.quotaBytes ?? deps.limits.defaultQuotaBytes,
    quota: deps.quota,
    onReserved: (bytes) => deps.files.addReserved(ctx.projectId, path, bytes),
  });
  try {
    // The store reads from the meter. Both sides must have settled before any cleanup, or a
    // late write could land after the delete; a store failure also stops the incoming side.
    const [piped, stored] = await Promise.allSettled([
      pipeline(peeked.body, meter),
      deps.store.put(path, meter, contentType).catch((e: unknown) => {
        meter.destroy(e as Error);
        throw e;
      }),
    ]);
    if (piped.status === 'rejected' && isAppError(piped.reason)) throw piped.reason;
    if (stored.status === 'rejected') throw stored.reason;
    if (piped.status === 'rejected') throw piped.reason;
    const events = fileEvents(ctx, 'file.uploaded', { path, size: meter.bytes, contentType });
    if (!(await deps.files.complete(ctx.projectId, path, meter.bytes, events))) {
      // The project was deleted while we streamed: what we wrote must go too.
      throw new Error('file record vanished during upload');
    }
  } catch (e) {
    peeked.body.destroy();
    input.body.destroy();
    meter.destroy();
    await deps.store.delete(path).catch(() => undefined);
    await deps.files.remove(ctx.projectId, path).catch(() => undefined);
    if (meter.reserved > 0) await deps.quota.release(ctx.projectId, meter.reserved).catch(() => undefined);
    deps.observer?.uploaded(uploadOutcome(e), 0);
    throw e;
  }
  deps.observer?.uploaded('stored', meter.bytes);
  if (meter.reserved > meter.bytes) await deps.quota.release(ctx.projectId, meter.reserved - meter.bytes);
  return {
    message: 'File uploaded successfully',
    url: publicUrl(deps, path),
    path,
    provider: deps.store.provider,
  };
}

/** How a failed upload ended, from the error it ended with. */
export function uploadOutcome(e: unknown): UploadOutcome {
  if (isAppError(e) && e.code === 'PAYLOAD_TOO_LARGE') return 'too_large';
  if (isAppError(e) && e.code === 'QUOTA_EXCEEDED') return 'quota_exceeded';
  return 'failed';
}
