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

/** GET of a public file URL, as a browser would (no key), through the gateway. */
export async function fetchPublic(url: string) {
  return send(url);
}
