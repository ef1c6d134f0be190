// Parse Server 9.9.0 on the local PostgreSQL, in a database of its own that the bench creates
// (and drops at the end). Requests carry the master key (Parse's server-side key) unless a
// workload acts as a user (session token). The class is declared through the schema API with
// indexes on `tag` and on `createdAt`; documents carry an ACL naming their owner. Files go to
// the file-system adapter (bench/peers/parse-server.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call } from './http.mjs';
import { HOST, freePort, startProcess, waitHttp } from './process.mjs';
import { workspaceModule } from './workspace-module.mjs';

const pg = workspaceModule('packages/common', 'pg');

const DATABASE = 'baas_bench_parse';
const APP_ID = 'baas-bench';
const MASTER_KEY = 'baas-bench-master-key';
const SERVER_SCRIPT = fileURLToPath(new URL('../peers/parse-server.mjs', import.meta.url));

async function admin(adminUrl, sql) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export function parseDatabaseUrl(adminUrl) {
  const u = new URL(adminUrl);
  u.pathname = `/${DATABASE}`;
  return u.toString();
}

export async function dropParseDatabase(adminUrl) {
  await admin(adminUrl, `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
}

export async function startParse(benchDir, runDir, adminUrl) {
  const parseDir = path.join(benchDir, 'parse');
  if (!fs.existsSync(path.join(parseDir, 'node_modules', 'parse-server', 'package.json')))
    throw new Error(`${parseDir}/node_modules/parse-server is missing: run bash bench/install-peers.sh`);
  await dropParseDatabase(adminUrl);
  await admin(adminUrl, `CREATE DATABASE ${DATABASE}`);
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const logsDir = path.join(runDir, 'parse-logs');
  fs.mkdirSync(logsDir, { recursive: true });
  const proc = startProcess('parse-server', process.execPath, [SERVER_SCRIPT], {
    cwd: runDir,
    logFile: path.join(runDir, 'parse-server.log'),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PARSE_DIR: parseDir,
      PORT: String(port),
      DATABASE_URI: parseDatabaseUrl(adminUrl),
      APP_ID,
      MASTER_KEY,
      LOGS_DIR: logsDir,
    },
  });
  await waitHttp(proc, `${base}/parse/health`);
  const headers = { 'x-parse-application-id': APP_ID, 'x-parse-master-key': MASTER_KEY };
  await call('POST', `${base}/parse/schemas/items`, {
    headers,
    expect: [200, 201],
    body: {
      className: 'items',
      fields: {
        title: { type: 'String' },
        n: { type: 'Number' },
        tag: { type: 'String' },
        owner: { type: 'String' },
      },
      indexes: { tag_1: { tag: 1 }, createdAt_1: { createdAt: 1 } },
    },
  });
  const classes = '/parse/classes/items';
  const appOnly = { 'x-parse-application-id': APP_ID };
  return {
    name: 'Parse Server 9.9.0',
    key: 'parse',
    store: 'PostgreSQL (same server as ours)',
    process: proc,
    baseUrl: base,
    headers,
    database: DATABASE,
    /** A document with an owner is readable and writable by that user only (its ACL). */
    docBody: (doc) => (doc.owner ? { ...doc, ACL: { [doc.owner]: { read: true, write: true } } } : doc),
    async create(doc) {
      const r = await call('POST', `${base}${classes}`, { headers, body: this.docBody(doc), expect: [201] });
      return r.json.objectId;
    },
    async createUser(email, password) {
      const r = await call('POST', `${base}/parse/users`, {
        headers: appOnly,
        body: { username: email, email, password },
        expect: [201],
      });
      return { id: r.json.objectId, token: r.json.sessionToken };
    },
    userHeaders: (token) => ({ ...appOnly, 'x-parse-session-token': token }),
    login: (email, password) => ({
      path: '/parse/login',
      method: 'POST',
      headers: appOnly,
      body: { username: email, password },
    }),
    upload: (bytes) => ({
      path: '/parse/files/bench.bin',
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    }),
    // Parse's aggregate needs the master key; evaluated by the PostgreSQL adapter in SQL
    aggregate: () => ({
      path: `/parse/aggregate/items?pipeline=${encodeURIComponent(
        JSON.stringify([{ $group: { _id: '$tag', count: { $sum: 1 } } }]),
      )}`,
    }),
    paths: {
      // count=1: the answer carries the total, as ours and PocketBase's do
      list: () => `${classes}?order=-createdAt&limit=20&count=1`,
      get: (id) => `${classes}/${id}`,
      filter: (tag) =>
        `${classes}?order=-createdAt&limit=20&count=1&where=${encodeURIComponent(JSON.stringify({ tag }))}`,
      create: () => classes,
    },
    pagePath: async (n) => `${classes}?order=-createdAt&limit=20&skip=${(n - 1) * 20}`,
    pageMethod: 'offset (skip=20(N-1), no total)',
  };
}
