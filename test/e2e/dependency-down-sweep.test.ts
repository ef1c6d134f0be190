import { randomBytes } from 'node:crypto';
import type { ServiceName } from '@baas/common';
import { faultDatabase } from '../support/fault-store';
import { infra } from '../support/infra';
import { operations as documented, schemesOf } from '../support/openapi-operations';
import { freePort, ServiceProcess } from '../support/service-process';
import { serviceAssertion } from '../support/service-call';
import { stackEnv } from '../support/stack-env';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * A dependency that is away is a 503 (or a 504), never a 400, a 404 or a 500: for every operation
 * of the OpenAPI document that a service answers, a process of that service with one dependency
 * behind a TCP proxy (its store, on a database of its own on the store TEST_STORE names; NATS;
 * Redis; S3; SMTP) is sent the same request twice, first with the dependency there and then with
 * the proxy cut. With it away, the answer must be a 503 or a 504, or what the service answered
 * with it there when it did not need it for that request (a refusal decided on the request alone,
 * an answer it had cached, a write whose event waits in the outbox): never a 500, and never a 4xx
 * it did not give before, which would tell a client its request was wrong when a server was. Then
 * the proxy comes back and the service must answer as before, by itself.
 */

/** An operation as this sweep sends it: the schemes flattened, the example as the body. */
interface Operation {
  method: string;
  path: string;
  security: string[];
  json?: unknown;
  multipart: boolean;
}

/**
 * An example body with an address of its own: the per-account sign-in limits live in Redis, which
 * every run and the other files share, and an account made with it is made again in the next phase.
 */
function ownEmail(example: unknown): unknown {
  if (typeof example !== 'object' || example === null || !('email' in example)) return example;
  return { ...example, email: `down.${randomBytes(5).toString('hex')}@example.test` };
}

function operationsOf(service: string): Operation[] {
  return documented
    .filter((op) => op.service === service)
    .map((op) => ({
      method: op.method,
      path: op.path,
      security: schemesOf(op),
      ...(op.json && { json: op.json.example ?? {} }),
      multipart: op.multipart,
    }));
}

/** What an operation is sent: a request the service can answer with its store there. */
interface Fixture {
  projectId: string;
  /** Path parameter values that name what the fixture made (the rest get well-formed ids). */
  values: Record<string, string>;
}

const newId = () => randomBytes(12).toString('hex');

/**
 * The assertion the gateway would send: an admin's (with the project, when the path names one),
 * a secret key's, or a public request's.
 */
function assertion(service: ServiceName, op: Operation, projectId: string): Promise<string> {
  const admin = op.security.includes('adminToken');
  const namesProject = /^\/api\/admin\/projects\/(\{projectId\}|[a-f0-9]{24})/.test(op.path);
  const withProject = op.security.includes('apiKey') || (admin && namesProject);
  return serviceAssertion(service, { admin, ...(withProject && { projectId }) });
}

interface Answer {
  status: number;
  text: string;
}

async function sendTo(
  proc: ServiceProcess,
  service: ServiceName,
  op: Operation,
  f: Fixture,
  timeoutMs = 40_000,
): Promise<Answer> {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'projectId' ? f.projectId : (f.values[name] ?? newId()),
  );
  const headers: Record<string, string> = {
    'x-gateway-assertion': await assertion(service, op, f.projectId),
  };
  let body: string | FormData | undefined;
  if (op.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(ownEmail(op.json));
  } else if (op.multipart) {
    body = new FormData();
    body.append('file', new Blob([Buffer.from('a small file')], { type: 'text/plain' }), 'small.txt');
  }
  try {
    const r = await fetch(`${proc.url}${path}`, {
      method: op.method,
      headers,
      ...(body !== undefined && { body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: r.status, text: await r.text() };
  } catch (e) {
    // no answer at all within the bound: as bad as a 500 for a client
    return { status: 0, text: (e as Error).message };
  }
}

/** What the fixture of each service makes while its store is there. */
const FIXTURES: Record<Service, (s: Sender) => Promise<Fixture>> = {
  async auth(send) {
    const made = await send('POST', '/api/admin/projects', ['adminToken'], { name: 'store-down' });
    const projectId = (JSON.parse(made.text) as { id: string }).id;
    return { projectId, values: { username: 'nobody' } };
  },
  async data(send) {
    const projectId = newId();
    const f = { projectId, values: {} };
    await send('PUT', `/api/admin/projects/${projectId}/collections/items`, ['adminToken'], {}, f);
    const doc = await send('POST', '/api/data/items', ['apiKey'], { title: 'kept' }, f);
    const id = (JSON.parse(doc.text) as { _id: string })._id;
    return { projectId, values: { collectionName: 'items', name: 'items', id } };
  },
  async storage(send) {
    const projectId = newId();
    const stored = await send('POST', '/api/storage/upload', ['apiKey'], undefined, {
      projectId,
      values: {},
    });
    const path = (JSON.parse(stored.text) as { path: string }).path;
    return { projectId, values: { name: path.slice(path.indexOf('/') + 1) } };
  },
  async mail(send) {
    const projectId = newId();
    const key = `down-${randomBytes(4).toString('hex')}`;
    const template = { subject: 'Hello {{name}}', text: 'Hi {{name}}' };
    const f = { projectId, values: {} };
    await send('PUT', `/api/admin/projects/${projectId}/mail/templates/${key}`, ['adminToken'], template, f);
    return { projectId, values: { key } };
  },
};

type Sender = (
  method: string,
  path: string,
  security: string[],
  json: unknown,
  f?: Fixture,
) => Promise<Answer>;

type Service = 'auth' | 'data' | 'storage' | 'mail';

/**
 * What a service depends on, each put behind the proxy in its turn: the store (every service),
 * the broker (every service: an acknowledged write's event waits in the outbox), Redis (the auth
 * service's sign-in throttles), the object store (storage) and the SMTP server (mail).
 */
interface Dependency {
  name: string;
  services: Service[];
  /** Where the real one listens, and the service's environment to reach it through `port`. */
  target(): Promise<{ host: string; port: number; env: (port: number) => Record<string, string> }>;
}

const stack = stackEnv();
const hostPort = (url: string, def: number) => {
  const u = new URL(url.replace(/^(nats|redis):/, 'http:'));
  return { host: u.hostname, port: Number(u.port || def) };
};

const dependencies: Dependency[] = [
  {
    name: `its store (${infra.store})`,
    services: ['auth', 'data', 'storage', 'mail'],
    async target() {
      const db = await faultDatabase('down');
      cleanups.push(() => db.close());
      return { host: db.host, port: db.port, env: (port) => ({ DATABASE_URL: db.url(port) }) };
    },
  },
  {
    name: 'NATS',
    services: ['auth', 'data', 'storage', 'mail'],
    target: async () => ({
      ...hostPort(stack.NATS_URL ?? 'nats://127.0.0.1:4222', 4222),
      env: (port) => ({ NATS_URL: `nats://127.0.0.1:${port}` }),
    }),
  },
  {
    name: 'Redis',
    services: ['auth'],
    target: async () => ({
      ...hostPort(stack.REDIS_URL ?? 'redis://127.0.0.1:6379', 6379),
      env: (port) => ({ REDIS_URL: `redis://127.0.0.1:${port}` }),
    }),
  },
  {
    name: 'the object store (S3)',
    services: ['storage'],
    target: async () => ({
      ...hostPort(stack.S3_ENDPOINT ?? 'http://127.0.0.1:7070', 7070),
      env: (port) => ({ S3_ENDPOINT: `http://127.0.0.1:${port}` }),
    }),
  },
  {
    name: 'the SMTP server',
    services: ['mail'],
    target: async () => ({
      host: stack.SMTP_HOST ?? '127.0.0.1',
      port: Number(stack.SMTP_PORT ?? 1025),
      env: (port) => ({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port) }),
    }),
  },
];

/** The environment the stack gives a service beyond what ServiceProcess sets: storage on S3. */
function asTheStackRunsIt(service: Service): Record<string, string> {
  if (service !== 'storage') return {};
  const names = ['S3_ENDPOINT', 'S3_REGION', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
  return {
    STORAGE_DRIVER: 's3',
    ...Object.fromEntries(names.flatMap((n) => (stack[n] ? [[n, stack[n]]] : []))),
  };
}

/** What a describe's dependency made (a database), undone when the describe ends. */
const cleanups: Array<() => Promise<unknown>> = [];

describe.each(dependencies.flatMap((d) => d.services.map((s) => [s, d.name, d] as const)))(
  '%s with %s away',
  (service, _, dependency) => {
    let proxy: TcpProxy;
    let proc: ServiceProcess;
    let make: () => Promise<Fixture>;
    const operations = operationsOf(service);

    beforeAll(async () => {
      const target = await dependency.target();
      proxy = new TcpProxy(target.host, target.port);
      await proxy.start();
      proc = new ServiceProcess(service, await freePort(), {
        ...asTheStackRunsIt(service),
        ...target.env(proxy.port),
      });
      await proc.start();
      const send: Sender = async (method, path, security, json, f) => {
        const op: Operation = { method, path, security, json, multipart: json === undefined };
        const r = await sendTo(proc, service, op, f ?? { projectId: newId(), values: {} });
        if (r.status >= 300)
          throw new Error(`fixture ${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
        return r;
      };
      make = () => FIXTURES[service](send);
    });

    afterAll(async () => {
      await proc?.stop();
      await proxy?.cut();
      while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
    });

    it('answers 503 or 504 (or what it answered with it) to every operation, and recovers', async () => {
      expect(operations.length).toBeGreaterThan(5);
      // each request on what a fixture of its own made, the same way in both phases: what one
      // operation changes (a deletion, a rotated key) never decides another's answer
      const fixtures: Array<[Fixture, Fixture]> = [];
      for (let i = 0; i < operations.length; i++) fixtures.push([await make(), await make()]);
      const up: Answer[] = [];
      for (const [i, op] of operations.entries()) up.push(await sendTo(proc, service, op, fixtures[i]![0]));
      expect(
        up.filter((a) => a.status >= 500 || a.status === 0).map((a) => `${a.status} ${a.text.slice(0, 300)}`),
      ).toEqual([]);

      await proxy.cut();
      // all at once: a request that waits out a driver's timeout does not hold up the others
      const down = await Promise.all(operations.map((op, i) => sendTo(proc, service, op, fixtures[i]![1])));
      const wrong = operations.flatMap((op, i) => {
        const [before, after] = [up[i]!, down[i]!];
        const fine = after.status === 503 || after.status === 504 || after.status === before.status;
        return fine
          ? []
          : [
              `${op.method} ${op.path}: ${before.status} with it, ${after.status} without: ${after.text.slice(0, 300)}`,
            ];
      });
      expect(wrong).toEqual([]);

      await proxy.restore();
      const reads = operations.flatMap((op, i) =>
        op.method === 'GET' ? [[op, fixtures[i]![0]] as const] : [],
      );
      const deadline = Date.now() + 30_000;
      let again: Answer[] = [];
      for (;;) {
        again = [];
        for (const [op, f] of reads) again.push(await sendTo(proc, service, op, f));
        if (again.every((a) => a.status < 500) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(again.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.text.slice(0, 300)}`)).toEqual(
        [],
      );
    });
  },
);
