// Small JSON client for set-up and seeding (the measurements themselves use autocannon). Its
// requests come from the bench's client population too (bench/lib/population.mjs).
import { withClientAddress } from './population.mjs';

/** The one document shape every system stores: `createdAt` is set by each system itself. */
export function documentFor(i) {
  return { title: `Document ${i}`, n: i, tag: `tag-${i % TAGS}` };
}

/** Distinct `tag` values: an equality filter on one of them matches 1% of the documents. */
export const TAGS = 100;

/** One request; `body` is sent as JSON, `raw` (a Buffer) as is with the caller's content-type. */
export async function call(method, url, { headers = {}, body, raw, expect } = {}) {
  const res = await fetch(url, {
    method,
    headers: withClientAddress(
      body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ),
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (expect && !expect.includes(res.status)) {
    throw new Error(
      `${method} ${url} -> ${res.status} (expected ${expect.join('/')}): ${text.slice(0, 400)}`,
    );
  }
  return { status: res.status, json, headers: res.headers };
}

/**
 * Runs task(i) for i in [0, count) with `concurrency` in flight; returns the results in order.
 * Used to seed through each system's API with the same client and the same concurrency.
 */
export async function runConcurrently(count, concurrency, task) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** A multipart/form-data body with one `file` part, as a browser would send it. */
export function multipart(path, bytes, field = 'file') {
  const boundary = `----baasbench${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="bench.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return {
    path,
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  };
}
