// PocketBase v0.36.8 (examples/base: the stock binary, its own SQLite), started on a free port in
// a fresh data directory. Requests are authenticated as a superuser (the server-side key of
// PocketBase; our secret key and Parse's master key are the same role). Indexes on `tag` and on
// `created` are declared with the collection, as an operator would for these queries.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { call } from './http.mjs';
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
  await call('POST', `${base}/api/collections`, {
    headers,
    expect: [200],
    body: {
      name: 'items',
      type: 'base',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'number' },
        { name: 'tag', type: 'text' },
        { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
        { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
      ],
      indexes: [
        'CREATE INDEX idx_items_tag ON items (tag)',
        'CREATE INDEX idx_items_created ON items (created)',
      ],
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
    async create(doc) {
      const r = await call('POST', `${base}${records}`, { headers, body: doc, expect: [200] });
      return r.json.id;
    },
    paths: {
      // page 1 with its total (PocketBase's default list answer, like ours)
      list: () => `${records}?sort=-created&perPage=20`,
      get: (id) => `${records}/${id}`,
      filter: (tag) => `${records}?sort=-created&perPage=20&filter=${encodeURIComponent(`tag='${tag}'`)}`,
      create: () => records,
    },
  };
}
