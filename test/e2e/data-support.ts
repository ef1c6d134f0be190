import { client, createProject, type CallOptions, type CallResult, type TestProject } from '../support/e2e';

/** A gateway client that moves to a fresh client IP every 80 calls (global limit: 100 per window). */
export function rotatingClient() {
  let n = 0;
  let c = client();
  return <T = any>(method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> => {
    if (++n % 80 === 0) c = client();
    return c<T>(method, path, opts);
  };
}

export type Call = ReturnType<typeof rotatingClient>;

export interface DataProject extends TestProject {
  call: Call;
  register(name: string, def?: unknown): Promise<void>;
  /** A new end user of this project (signup through the auth service; own client IP). */
  user(): Promise<{ token: string; id: string }>;
  /** Inserts with the secret key and returns the document. */
  seed(collection: string, doc: Record<string, unknown>): Promise<Record<string, any>>;
}

export async function dataProject(settings: Record<string, unknown> = {}): Promise<DataProject> {
  const p = await createProject(settings, 'data-e2e');
  const call = rotatingClient();
  return {
    ...p,
    call,
    async register(name, def = {}) {
      const r = await call('PUT', `/api/admin/projects/${p.id}/collections/${name}`, {
        admin: true,
        body: def,
      });
      if (r.status !== 201 && r.status !== 200)
        throw new Error(`register ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    },
    async user() {
      const r = await client()('POST', '/api/userAuth/signup', {
        key: p.publishableKey,
        body: {
          email: `u${Date.now()}${Math.random().toString(36).slice(2, 8)}@example.com`,
          password: 'a long enough passphrase 42',
        },
      });
      if (r.status !== 201) throw new Error(`signup: ${r.status} ${JSON.stringify(r.body)}`);
      return { token: r.body.accessToken as string, id: String(r.body.user._id) };
    },
    async seed(collection, doc) {
      const r = await call('POST', `/api/data/${collection}`, { key: p.secretKey, body: doc });
      if (r.status !== 201) throw new Error(`seed ${collection}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as Record<string, any>;
    },
  };
}

export function canary(label: string): string {
  return `CANARY-${label}-${Math.random().toString(36).slice(2, 10)}`;
}
