import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertionPrivateKey, signAssertion, trustedProjectId, type ServiceName } from '@baas/common';
import { faultDatabase, type FaultDatabase } from '../support/fault-store';
import { infra } from '../support/infra';
import { freePort, ServiceProcess } from '../support/service-process';
import { TEST_SETTINGS } from '../support/service-call';
import { stackSecret } from '../support/stack-env';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * A store that is away is a 503 (or a 504), never a 400, a 404 or a 500: for every operation of
 * the OpenAPI document that a service answers, a process of that service on a database of its own
 * (on the store TEST_STORE names) behind a TCP proxy is sent the same request twice, first with
 * the store there and then with the proxy cut. With the store away, the answer must be a 503 or a
 * 504, or what the service answered with the store there when it did not need the store for it
 * (a refusal decided on the request alone, or an answer it had cached): never a 500, and never a
 * 4xx it did not give before, which would tell a client its request was wrong when the store
 * was. Then the proxy comes back and the service must answer as before, by itself.
 */

interface DocumentOperation {
  responses?: unknown;
  security?: Array<Record<string, unknown>>;
  'x-baas-service'?: string;
  requestBody?: { content?: Record<string, { example?: unknown; schema?: { example?: unknown } }> };
}

const document = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'services', 'gateway', 'openapi.json'), 'utf8'),
) as { security?: DocumentOperation['security']; paths: Record<string, Record<string, DocumentOperation>> };

interface Operation {
  method: string;
  path: string;
  security: string[];
  json?: unknown;
  multipart: boolean;
}

/**
 * An example body with an address of this run's own: the per-account sign-in limits live in Redis,
 * which every run and the other files share.
 */
function ownEmail(example: unknown): unknown {
  if (typeof example !== 'object' || example === null || !('email' in example)) return example;
  return { ...example, email: `down.${randomBytes(5).toString('hex')}@example.test` };
}

/** Reads first and deletions last (a project's own deletion the very last): what the fixture made stays. */
const ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const rank = (op: Operation) =>
  ORDER.indexOf(op.method) +
  (op.method === 'DELETE' && op.path === '/api/admin/projects/{projectId}' ? 1 : 0);

function operationsOf(service: string): Operation[] {
  return operationsIn(service).sort((a, b) => rank(a) - rank(b));
}

function operationsIn(service: string): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]): Operation[] => {
      if (typeof op !== 'object' || Array.isArray(op) || !op.responses || op['x-baas-service'] !== service)
        return [];
      const content = op.requestBody?.content ?? {};
      const json = content['application/json'];
      return [
        {
          method: method.toUpperCase(),
          path,
          security: (op.security ?? document.security ?? []).flatMap((s) => Object.keys(s)),
          ...(json && { json: ownEmail(json.example ?? json.schema?.example ?? {}) }),
          multipart: content['multipart/form-data'] !== undefined,
        },
      ];
    }),
  );
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
async function assertion(service: ServiceName, op: Operation, projectId: string): Promise<string> {
  const key = assertionPrivateKey(stackSecret('GATEWAY_ASSERTION_PRIVATE_KEY'));
  const requestId = `down-${randomBytes(4).toString('hex')}`;
  const admin = op.security.includes('adminToken');
  const project = {
    projectId: trustedProjectId(projectId),
    keyType: 'secret' as const,
    settings: TEST_SETTINGS,
  };
  const namesProject = /^\/api\/admin\/projects\/(\{projectId\}|[a-f0-9]{24})/.test(op.path);
  const withProject = op.security.includes('apiKey') || (admin && namesProject);
  return signAssertion(key, service, { requestId, admin, ...(withProject ? project : {}) });
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
    body = JSON.stringify(op.json);
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
const FIXTURES: Record<'auth' | 'data' | 'storage' | 'mail', (s: Sender) => Promise<Fixture>> = {
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
    const f = { projectId, values: {} };
    await send(
      'PUT',
      `/api/admin/projects/${projectId}/mail/templates/store-down`,
      ['adminToken'],
      {
        subject: 'Hello {{name}}',
        text: 'Hi {{name}}',
      },
      f,
    );
    return { projectId, values: { key: 'store-down' } };
  },
};

type Sender = (
  method: string,
  path: string,
  security: string[],
  json: unknown,
  f?: Fixture,
) => Promise<Answer>;

describe.each(['auth', 'data', 'storage', 'mail'] as const)(
  `%s with its store (${infra.store}) away`,
  (service) => {
    let db: FaultDatabase;
    let proxy: TcpProxy;
    let proc: ServiceProcess;
    let fixture: Fixture;
    const operations = operationsOf(service);

    beforeAll(async () => {
      db = await faultDatabase(`down_${service}`);
      proxy = new TcpProxy(db.host, db.port);
      await proxy.start();
      proc = new ServiceProcess(service, await freePort(), { DATABASE_URL: db.url(proxy.port) });
      await proc.start();
      const send: Sender = async (method, path, security, json, f) => {
        const op: Operation = { method, path, security, json, multipart: json === undefined };
        const r = await sendTo(proc, service, op, f ?? { projectId: newId(), values: {} });
        if (r.status >= 300)
          throw new Error(`fixture ${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
        return r;
      };
      fixture = await FIXTURES[service](send);
    });

    afterAll(async () => {
      await proc?.stop();
      await proxy?.cut();
      await db?.close();
    });

    it('answers 503 or 504 (or what it answered without the store) to every operation, and recovers', async () => {
      expect(operations.length).toBeGreaterThan(5);
      const up: Answer[] = [];
      for (const op of operations) up.push(await sendTo(proc, service, op, fixture));
      expect(
        up.filter((a) => a.status >= 500 || a.status === 0).map((a) => `${a.status} ${a.text.slice(0, 300)}`),
      ).toEqual([]);

      await proxy.cut();
      // all at once: a request that waits out a driver's timeout does not hold up the others
      const down = await Promise.all(operations.map((op) => sendTo(proc, service, op, fixture)));
      const wrong = operations.flatMap((op, i) => {
        const [before, after] = [up[i]!, down[i]!];
        const fine = after.status === 503 || after.status === 504 || after.status === before.status;
        return fine
          ? []
          : [
              `${op.method} ${op.path}: ${before.status} with the store, ${after.status} without: ${after.text.slice(0, 300)}`,
            ];
      });
      expect(wrong).toEqual([]);

      await proxy.restore();
      const deadline = Date.now() + 30_000;
      let again: Answer[] = [];
      for (;;) {
        again = [];
        for (const op of operations.filter((o) => o.method === 'GET'))
          again.push(await sendTo(proc, service, op, fixture));
        if (again.every((a) => a.status < 500) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(again.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.text.slice(0, 300)}`)).toEqual(
        [],
      );
    });
  },
);
