import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { createResponseValidator, type OpenApiDocument } from './openapi-responses';
import { stackEnv } from './stack-env';

/**
 * A client that talks only to the gateway, as an outside client would. Each test file gets its
 * own client IP (X-Forwarded-For, honoured because the test stack runs with TRUST_PROXY=loopback)
 * so rate-limit buckets are not shared between tests.
 */
const env = stackEnv();
export const BASE_URL = env.BASE_URL ?? 'http://127.0.0.1:8080';
export const ADMIN_TOKEN = env.PLATFORM_ADMIN_TOKEN ?? '';
export const MAIL_API_URL = env.MAIL_API_URL ?? 'http://127.0.0.1:8025';

export function randomIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/**
 * Each test client is its own network peer: requests leave from a distinct loopback address
 * (all of 127.0.0.0/8 is local on Linux) and also carry a distinct X-Forwarded-For. So the
 * per-IP rate limit gives every client its own bucket whether or not the gateway trusts
 * X-Forwarded-For (TRUST_PROXY), and tests never share a bucket.
 */
const LOCAL_GATEWAY = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost)(:\d+)?\//;

export function loopbackFor(ip: string): string | undefined {
  const [, b, c, d] = ip.split('.').map(Number);
  return b === undefined ? undefined : `127.${b}.${c ?? 0}.${Math.max(2, Math.min(254, d ?? 2))}`;
}

/**
 * Every answer `send()` (and so `client()`) receives is held to the OpenAPI document the gateway
 * serves: an undocumented status, or a JSON body that does not match the documented schema, makes
 * the request reject with what differs. Skipped: the mail capture server (not our API), and
 * requests the document does not describe (unknown routes probed on purpose, the console's pages,
 * CORS preflights); README, "Tests".
 */
let responseValidator: ReturnType<typeof createResponseValidator> | undefined;
/** `E2E_OPENAPI_LOG=<file>`: one JSON line per verdict (what was held, what skipped and why). */
const VERDICT_LOG = process.env.E2E_OPENAPI_LOG;
function holdToDocument(
  url: string,
  method: string,
  status: number,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
): Error | undefined {
  if (new URL(url).origin === new URL(MAIL_API_URL).origin) return undefined;
  try {
    responseValidator ??= createResponseValidator(
      JSON.parse(
        readFileSync(join(__dirname, '..', '..', 'services', 'gateway', 'openapi.json'), 'utf8'),
      ) as OpenApiDocument,
    );
    const verdict = responseValidator.check({
      method,
      url,
      status,
      contentType: headers['content-type'] ?? null,
      body,
    });
    if (VERDICT_LOG) appendFileSync(VERDICT_LOG, `${JSON.stringify({ method, url, status, ...verdict })}\n`);
    return verdict.outcome === 'invalid' ? new Error(verdict.message) : undefined;
  } catch (e) {
    // A schema Ajv cannot compile is a broken check, not a passing one.
    return e instanceof Error ? e : new Error(String(e));
  }
}

/**
 * The caller's frames, taken while they were still on the stack, for an error raised later; this
 * file's own frames left out, so the report points at the test's request.
 */
function withCallerStack(error: Error, caller: Error): Error {
  const frames = (caller.stack ?? '').split('\n').slice(1);
  error.stack = [`${error.name}: ${error.message}`, ...frames.filter((f) => !f.includes(__filename))].join(
    '\n',
  );
  return error;
}

export interface SendInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | FormData;
  /** The client's address: sent as X-Forwarded-For and used as the loopback source address. */
  ip?: string;
}

/** An HTTP request as a distinct client; answers with a fetch Response. */
export async function send(url: string, init: SendInit = {}): Promise<Response> {
  const caller = new Error();
  const ip = init.ip ?? randomIp();
  const headers: Record<string, string> = { 'x-forwarded-for': ip, ...init.headers };
  let body: string | Buffer | undefined;
  if (init.body instanceof FormData) {
    // Let the platform encode the multipart body and its boundary.
    const encoded = new Response(init.body);
    body = Buffer.from(await encoded.arrayBuffer());
    headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
  } else body = init.body;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const localAddress = LOCAL_GATEWAY.test(url) ? loopbackFor(ip) : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers, ...(localAddress ? { localAddress } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const one of v) h.append(k, one);
            else if (v !== undefined) h.set(k, v);
          }
          const status = res.statusCode ?? 0;
          const noBody = status === 204 || status === 304 || init.method === 'HEAD';
          const bytes = Buffer.concat(chunks);
          const mismatch = holdToDocument(url, init.method ?? 'GET', status, res.headers, bytes);
          if (mismatch) reject(withCallerStack(mismatch, caller));
          else resolve(new Response(noBody ? null : bytes, { status, headers: h }));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface CallOptions {
  key?: string;
  token?: string;
  admin?: boolean;
  body?: unknown;
  rawBody?: string | Buffer | FormData;
  headers?: Record<string, string>;
  ip?: string;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function client(ip: string = randomIp()) {
  return async function call<T = any>(
    method: string,
    path: string,
    opts: CallOptions = {},
  ): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Buffer | FormData | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    } else if (opts.rawBody !== undefined) body = opts.rawBody;
    const r = await send(`${BASE_URL}${path}`, {
      method,
      headers,
      ip: opts.ip ?? ip,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: r.status, body: parsed as T, headers: r.headers };
  };
}

export interface TestProject {
  id: string;
  publishableKey: string;
  secretKey: string;
}

/** Every test creates its own project, so tests never share state. */
export async function createProject(
  settings: Record<string, unknown> = {},
  name = 'e2e',
): Promise<TestProject> {
  const call = client();
  const r = await call('POST', '/api/admin/projects', { admin: true, body: { name, settings } });
  if (r.status !== 201) throw new Error(`create project failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as TestProject;
}
