import type { Request, Response } from 'express';
import busboy from 'busboy';
import { errors, isAppError, type AppError } from '@baas/common';
import type { FileDeps } from '../domain/files/deps';
import {
  uploadFile,
  type UploadContext,
  type UploadInput,
  type UploadResult,
} from '../domain/files/upload-file';

/** Room for the multipart envelope (boundaries, part headers, a long file name). */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

const fileRequired = () =>
  errors.badRequest('FILE_REQUIRED', 'A multipart/form-data body with a file field named "file" is required');

export interface ReceiveOptions {
  maxFileBytes: number;
  /** Runs the upload use case on the `file` part as soon as it starts. */
  upload: (input: UploadInput) => Promise<UploadResult>;
}

/**
 * Parses the request with busboy and hands the `file` part to the upload as a stream: nothing
 * is buffered beyond the stream's high-water mark. The whole body is bounded too (extra parts,
 * chunked bodies without a length), and a client that goes away aborts the upload.
 */
export function receiveUpload(req: Request, opts: ReceiveOptions): Promise<UploadResult> {
  const bodyLimit = opts.maxFileBytes + MULTIPART_OVERHEAD_BYTES;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > bodyLimit) {
    return Promise.reject(errors.payloadTooLarge(`File exceeds the ${opts.maxFileBytes} byte limit`));
  }
  if (!req.is('multipart/form-data')) return Promise.reject(fileRequired());
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      // One byte past the limit reaches the meter, which turns it into the 413.
      limits: {
        fileSize: opts.maxFileBytes + 1,
        files: 5,
        fields: 20,
        parts: 25,
        fieldSize: 64 * 1024,
        headerPairs: 50,
      },
    });
  } catch {
    return Promise.reject(fileRequired());
  }

  return new Promise<UploadResult>((resolve, reject) => {
    let upload: Promise<UploadResult> | undefined;
    let file: busboy.FileStream | undefined;
    let settled = false;
    let stored = false;
    let received = 0;
    /** busboy's verdict that the body is malformed (it breaks off, a part header is bad). */
    let malformed: AppError | undefined;
    const fail = (e: AppError | Error): void => {
      if (settled) return;
      settled = true;
      file?.destroy(e);
      reject(e);
    };
    const abortUpload = (e: AppError): void => {
      if (file) file.destroy(e);
      else fail(e);
    };

    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= bodyLimit) return;
      // Past the bound after a stored upload (a huge trailing part): stop reading altogether.
      // After a failure the caller drains the rest (discardRest) so that its answer is read
      // first: destroying here could reset the connection before the answer leaves, and the
      // gateway would see a reset (502) instead of the 413.
      if (!settled) abortUpload(errors.payloadTooLarge(`File exceeds the ${opts.maxFileBytes} byte limit`));
      else if (stored) req.destroy();
    });
    req.on('close', () => {
      if (!req.complete) abortUpload(errors.badRequest('UPLOAD_ABORTED', 'The client aborted the upload'));
    });

    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || upload) {
        stream.resume();
        return;
      }
      file = stream;
      upload = opts.upload({ body: stream, filename: info.filename, mimeType: info.mimeType });
      upload.then(
        (r) => {
          if (settled) return;
          settled = true;
          stored = true;
          resolve(r);
        },
        (e: unknown) => {
          if (isAppError(e)) return fail(e);
          // A body that breaks off inside the file: busboy fails the file's stream with its own
          // Error ("Unexpected end of form") and, in the same call, queues the same verdict on
          // itself. Its 'error' has run by the next turn of the loop: the client's mistake is
          // then a 400, and any other failure of the upload (the spool, the object store) stays
          // what it is.
          setImmediate(() => fail(malformed ?? (e as Error)));
        },
      );
    });
    bb.on('close', () => {
      if (!upload) fail(fileRequired());
    });
    bb.on('error', (e) => {
      const err = isAppError(e) ? e : errors.badRequest('MALFORMED_MULTIPART', 'Malformed multipart body');
      malformed = err;
      if (file) file.destroy(err);
      else fail(err);
    });
    req.pipe(bb);
  });
}

/**
 * After an early answer (413, 403, 400) the rest of the body is read and dropped, up to a cap
 * (past it the connection is cut), so the client (and the gateway in between) can read the
 * answer instead of a reset. The connection stays open for that: answered with
 * `Connection: close`, node closes the socket as soon as the answer is written, and a gateway
 * still streaming the body met a reset and, when it came before the answer was read, said 502.
 */
export function discardRest(req: Request, capBytes: number): void {
  if (req.complete) return;
  req.unpipe();
  let drained = 0;
  req.on('data', (c: Buffer) => {
    drained += c.length;
    if (drained > capBytes) req.destroy();
  });
  req.resume();
}

/**
 * Receives the multipart body into an upload for `ctx` and answers 201 with its result; `check`
 * runs first (a Bearer token sent with a key). On any failure the rest of the body is drained.
 */
export async function answerUpload(
  deps: FileDeps,
  req: Request,
  res: Response,
  ctx: UploadContext,
  check: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  try {
    await check();
    const result = await receiveUpload(req, {
      maxFileBytes: deps.limits.maxFileBytes,
      upload: (input) => uploadFile(deps, ctx, input),
    });
    res.status(201).json(result);
  } catch (e) {
    discardRest(req, 2 * deps.limits.maxFileBytes + MULTIPART_OVERHEAD_BYTES);
    throw e;
  }
}
