import { Readable } from 'node:stream';

/**
 * Reads the first `bytes` bytes of a stream (fewer when it ends sooner) and gives back a stream of
 * the whole content, those bytes included, with the source's backpressure and errors. Destroying
 * the returned stream destroys the source.
 */
export async function peekHead(source: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  const it = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let have = 0;
  let ended = false;
  while (have < bytes) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    have += next.value.length;
  }
  const head = Buffer.concat(chunks).subarray(0, bytes);
  async function* all(): AsyncGenerator<Buffer> {
    let finished = ended;
    try {
      yield* chunks;
      while (!finished) {
        const next = await it.next();
        if (next.done) finished = true;
        else yield next.value;
      }
    } finally {
      // Stopped early (the consumer failed or was destroyed): the source goes too.
      if (!finished) await it.return?.();
    }
  }
  return { head, body: Readable.from(all(), { objectMode: false }) };
}
