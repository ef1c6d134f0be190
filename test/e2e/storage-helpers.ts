import { randomBytes } from 'node:crypto';
import { client, send, type CallResult } from '../support/e2e';

/** Uploads `bytes` as the `file` field through the gateway. */
export async function uploadBytes(
  call: ReturnType<typeof client>,
  key: string,
  bytes: Uint8Array,
  filename = 'photo.png',
  type = 'image/png',
): Promise<CallResult> {
  const f = new FormData();
  f.append('file', new Blob([bytes], { type }), filename);
  return call('POST', '/api/storage/upload', { key, rawBody: f });
}

export function bytesOf(n: number): Buffer {
  return randomBytes(n);
}

/** `n` bytes that start with PNG's signature: what the storage service serves as image/png. */
export function pngBytes(n: number): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, randomBytes(Math.max(0, n - signature.length))]);
}

/** GET of a public file URL, as a browser would (no key), through the gateway. */
export async function fetchPublic(url: string) {
  return send(url);
}
