import { randomBytes } from 'node:crypto';
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
    const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? ip, ...opts.headers };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Buffer | FormData | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    } else if (opts.rawBody !== undefined) body = opts.rawBody;
    const r = await fetch(`${BASE_URL}${path}`, { method, headers, body });
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
