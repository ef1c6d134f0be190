// PocketBase v0.36.8 (examples/base: the stock binary, its own SQLite), started on a free port in
// a fresh data directory. Requests are authenticated as a superuser (the server-side key of
// PocketBase; our secret key and Parse's master key are the same role). Indexes on `tag` and on
// `created` are declared with the collection, as an operator would for these queries. Documents
// belong to users of the stock `users` auth collection (relation `owner`, list/view rule
// `owner = @request.auth.id`); uploads go to a collection with one file field.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { call, multipart } from './http.mjs';
import { HOST, freePort, startProcess, waitHttp } from './process.mjs';

const EMAIL = 'bench@example.test';
const PASSWORD = 'bench-password-123456';

export async function startPocketBase(benchDir, runDir) {
  const bin = path.join(benchDir, 'bin', 'pocketbase');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run bash bench/install-peers.sh`);
  const dataDir = path.join(runDir, 'pb_data');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const su = spawnSync(bin, ['superuser', 'upsert', EMAIL, PASSWORD, `--dir=${dataDir}`], {
    encoding: 'utf8',
  });
  if (su.status !== 0) throw new Error(`pocketbase superuser upsert failed: ${su.stderr || su.stdout}`);
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const proc = startProcess(
    'pocketbase',
    bin,
    // no automigrate: it would write the collection created below as a migration file
    [
      'serve',
      `--http=${HOST}:${port}`,
      `--dir=${dataDir}`,
      '--dev=false',
      '--automigrate=false',
      '--hooksWatch=false',
    ],
    { cwd: runDir, env: { ...process.env }, logFile: path.join(runDir, 'pocketbase.log') },
  );
  await waitHttp(proc, `${base}/api/health`);
  const auth = await call('POST', `${base}/api/collections/_superusers/auth-with-password`, {
    body: { identity: EMAIL, password: PASSWORD },
    expect: [200],
  });
  const headers = { authorization: auth.json.token };
  const users = await ensureUsersCollection(base, headers);
  const ownerRule = 'owner = @request.auth.id';
  await call('POST', `${base}/api/collections`, {
    headers,
    expect: [200],
    body: {
      name: 'items',
      type: 'base',
      // a user reads its own records; the superuser reads all (rules do not apply to it)
      listRule: ownerRule,
      viewRule: ownerRule,
      fields: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'number' },
        { name: 'tag', type: 'text' },
        { name: 'owner', type: 'relation', collectionId: users.id, maxSelect: 1 },
        { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
        { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
      ],
      indexes: [
        'CREATE INDEX idx_items_tag ON items (tag)',
        'CREATE INDEX idx_items_created ON items (created)',
        'CREATE INDEX idx_items_owner ON items (owner)',
      ],
    },
  });
  await call('POST', `${base}/api/collections`, {
    headers,
    expect: [200],
    body: {
      name: 'uploads',
      type: 'base',
      fields: [{ name: 'file', type: 'file', maxSelect: 1, maxSize: 20 * 1024 * 1024 }],
    },
  });
  const records = '/api/collections/items/records';
  return {
    name: 'PocketBase 0.36.8',
    key: 'pocketbase',
    store: 'SQLite (its own, WAL)',
    process: proc,
    baseUrl: base,
    headers,
    docBody: (doc) => doc,
    async create(doc) {
      const r = await call('POST', `${base}${records}`, { headers, body: doc, expect: [200] });
      return r.json.id;
    },
    async createUser(email, password) {
      const r = await call('POST', `${base}/api/collections/users/records`, {
        headers,
        body: { email, password, passwordConfirm: password, verified: true },
        expect: [200],
      });
      const a = await call('POST', `${base}/api/collections/users/auth-with-password`, {
        body: { identity: email, password },
        expect: [200],
      });
      return { id: r.json.id, token: a.json.token };
    },
    userHeaders: (token) => ({ authorization: token }),
    login: (email, password) => ({
      path: '/api/collections/users/auth-with-password',
      method: 'POST',
      headers: { authorization: '' },
      body: { identity: email, password },
    }),
    upload: (bytes) => multipart('/api/collections/uploads/records', bytes),
    aggregate: null,
    noAggregate: 'PocketBase has no aggregation API (list filters only; a $group needs a custom Go/JS route)',
    paths: {
      // page 1 with its total (PocketBase's default list answer, like ours)
      list: () => `${records}?sort=-created&perPage=20`,
      get: (id) => `${records}/${id}`,
      filter: (tag) => `${records}?sort=-created&perPage=20&filter=${encodeURIComponent(`tag='${tag}'`)}`,
      create: () => records,
    },
    pagePath: async (n) => `${records}?sort=-created&perPage=20&page=${n}`,
    pageMethod: 'offset (page=N, with total)',
  };
}

/** The `users` auth collection (new PocketBase installs have one; created when missing). */
async function ensureUsersCollection(base, headers) {
  const found = await call('GET', `${base}/api/collections/users`, { headers });
  if (found.status === 200) return found.json;
  const r = await call('POST', `${base}/api/collections`, {
    headers,
    expect: [200],
    body: { name: 'users', type: 'auth', fields: [] },
  });
  return r.json;
}
