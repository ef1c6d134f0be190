import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { AppError, errors } from '@baas/common';

/**
 * A body of unknown length, received whole before it is sent on, so that the store can be
 * given its exact length (S3 wants one for a plain PUT; without it an upload has to hold 5 MB
 * parts in memory). Up to `memoryBytes` stay in memory; past that everything goes to a file of
 * its own in `dir` (mode 0600), so memory stays flat whatever the size.
 */
export interface Spooled {
  readonly size: number;
  /** The whole body: the bytes themselves when held in memory, else a fresh stream of the file. */
  open(): Buffer | Readable;
  /** Removes the file, if any. */
  dispose(): Promise<void>;
}

/** The disk is full (or the process out of file handles) for now: the client may retry. */
const OUT_OF_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE']);
const outOfRoom = (e: NodeJS.ErrnoException) => typeof e.code === 'string' && OUT_OF_ROOM.has(e.code);
function noRoom(): AppError {
  const e = errors.serviceUnavailable('No room to receive the upload right now, please retry');
  return new AppError(e.status, e.code, e.message, undefined, { 'Retry-After': '5' });
}

class SpoolWriter extends Writable {
  size = 0;
  chunks: Buffer[] | undefined = [];
  file: WriteStream | undefined;
  readonly path: string;

  constructor(
    dir: string,
    private readonly memoryBytes: number,
  ) {
    super();
    this.path = join(dir, `baas-upload-${randomBytes(12).toString('hex')}`);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.size += chunk.length;
    if (this.chunks && this.size <= this.memoryBytes) {
      this.chunks.push(chunk);
      done();
      return;
    }
    if (!this.file) {
      this.file = createWriteStream(this.path, { flags: 'wx', mode: 0o600 });
      this.file.on('error', (e) => this.destroy(outOfRoom(e) ? noRoom() : e));
      for (const c of this.chunks ?? []) this.file.write(c);
      this.chunks = undefined;
    }
    if (this.file.write(chunk)) done();
    else this.file.once('drain', () => done());
  }

  override _final(done: (e?: Error | null) => void): void {
    if (!this.file) {
      done();
      return;
    }
    this.file.end();
    finished(this.file).then(() => done(), done);
  }
}

/** Reads `body` to its end into a spool; on any failure nothing is left on disk. */
export async function spool(body: Readable, dir: string, memoryBytes: number): Promise<Spooled> {
  const writer = new SpoolWriter(dir, memoryBytes);
  const remove = async () => {
    if (!writer.file) return;
    writer.file.destroy();
    await unlink(writer.path).catch(() => undefined);
  };
  try {
    await pipeline(body, writer);
  } catch (e) {
    await remove();
    throw e;
  }
  const chunks = writer.chunks;
  return {
    size: writer.size,
    open: () => (chunks ? Buffer.concat(chunks) : createReadStream(writer.path)),
    dispose: remove,
  };
}
