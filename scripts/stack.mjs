#!/usr/bin/env node
// Brings the whole system up / down on one machine (see docs/runtime-layout.md and the platform
// contract, "Running the whole system on one machine"). Node built-ins only.
//
//   node scripts/stack.mjs up [--infra-only]   start (idempotent), then wait for the gateway's /readyz
//   node scripts/stack.mjs down                 stop everything this script started; data stays
//   node scripts/stack.mjs status               what runs, what answers
//   node scripts/stack.mjs restart              stop the six services only, then `up`
//
// Mode: Docker Compose when `docker info` succeeds, native processes otherwise. Override with
// BAAS_STACK_MODE=native|docker. Other knobs: BAAS_TOOLS_DIR (where scripts/install-infra.sh puts
// ferretdb/mailpit/versitygw), BAAS_UP_TIMEOUT_SECONDS (readiness wait, default 60),
// BAAS_SKIP_INSTALL=1, BAAS_SKIP_BUILD=1, BAAS_S3_META=xattr|sidecar|nometa.
//
// Everything lives in .stack/: env (KEY=value for clients and tests), secrets.env (generated
// PLATFORM_ADMIN_TOKEN / INTERNAL_ASSERTION_SECRET, kept across down/up),
// data/ (databases, objects, mail), logs/<name>.log, pids/<name>.pid.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBucket } from './s3-ensure-bucket.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STACK = path.join(ROOT, '.stack');
const DATA = path.join(STACK, 'data');
const LOGS = path.join(STACK, 'logs');
const PIDS = path.join(STACK, 'pids');
const ENV_FILE = path.join(STACK, 'env');
const SECRETS_FILE = path.join(STACK, 'secrets.env');
const MODE_FILE = path.join(STACK, 'mode');
const COMPOSE_PORTS_FILE = path.join(STACK, 'compose-ports.env');
const LOCK_FILE = path.join(STACK, 'stack.lock');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
const HOST = '127.0.0.1';
const TOOLS_BIN = path.join(
  process.env.BAAS_TOOLS_DIR || path.join(os.homedir(), '.cache', 'baas-tools'),
  'bin',
);

/** Contract variables (platform-contract.md): passed on to every service when set by the caller. */
const CONTRACT_VARS = [
  'GATEWAY_PORT',
  'PLATFORM_ADMIN_TOKEN',
  'TRUST_PROXY',
  'RATE_LIMIT_GLOBAL_POINTS',
  'RATE_LIMIT_GLOBAL_WINDOW_SECONDS',
  'RATE_LIMIT_AUTH_POINTS',
  'RATE_LIMIT_AUTH_WINDOW_SECONDS',
  'ACCESS_TOKEN_TTL_SECONDS',
  'REFRESH_TOKEN_TTL_SECONDS',
  'REFRESH_REUSE_GRACE_SECONDS',
  'TRASH_GRACE_PERIOD_SECONDS',
  'JANITOR_INTERVAL_SECONDS',
  'ORPHAN_FILE_GRACE_SECONDS',
  'MAX_FILE_BYTES',
  'DEFAULT_STORAGE_QUOTA_BYTES',
  'DEFAULT_DOCUMENT_QUOTA',
  'DEFAULT_MAIL_MONTHLY_LIMIT',
];

const GATEWAY_PORT = Number(process.env.GATEWAY_PORT || 8080);
if (!Number.isInteger(GATEWAY_PORT) || GATEWAY_PORT < 1 || GATEWAY_PORT > 65535) {
  fail(`GATEWAY_PORT=${process.env.GATEWAY_PORT} is not a valid port`);
}

/** Start order; the gateway last. `db` is the service's MONGO_DB (runtime-layout.md). */
const SERVICES = [
  { name: 'auth', port: 8081, db: 'baas_auth', urlVar: 'AUTH_URL' },
  { name: 'data', port: 8082, db: 'baas_data', urlVar: 'DATA_URL' },
  { name: 'storage', port: 8083, db: 'baas_storage', urlVar: 'STORAGE_URL' },
  { name: 'mail', port: 8084, db: 'baas_mail', urlVar: 'MAIL_URL' },
  { name: 'janitor', port: 8085, db: 'baas_janitor', urlVar: 'JANITOR_URL' },
  { name: 'gateway', port: GATEWAY_PORT, db: 'baas_gateway', urlVar: 'BASE_URL' },
];
const INFRA_NAMES = ['ferretdb', 'nats', 'redis', 's3', 'mailpit'];

const S3_BUCKET = process.env.S3_BUCKET || 'baas-files';
const S3_REGION = process.env.S3_REGION || 'us-east-1';

// ---------------------------------------------------------------------------------------------
// small helpers

// `node scripts/stack.mjs status | head` must not crash on a closed pipe
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

function log(msg) {
  process.stdout.write(`[stack] ${msg}\n`);
}

function fail(msg, code = 1) {
  process.stderr.write(`[stack] ERROR: ${msg}\n`);
  process.exit(code);
}

class StackError extends Error {}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function mkdirs(...dirs) {
  for (const d of dirs) fs.mkdirSync(d, { recursive: true });
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function parseEnvFile(text) {
  const out = {};
  for (const line of (text ?? '').split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line);
    if (m && !line.trimStart().startsWith('#')) out[m[1]] = m[2].trim();
  }
  return out;
}

function writeEnvFile(file, obj, header) {
  const lines = header ? [`# ${header}`] : [];
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null) lines.push(`${k}=${v}`);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${lines.join('\n')}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function tail(file, lines = 40) {
  const text = readText(file);
  if (text === null) return '(no log file)';
  const all = text.split('\n');
  return all.slice(Math.max(0, all.length - lines - 1)).join('\n');
}

/** true when something accepts a TCP connection on host:port */
function tcpOpen(port, host = HOST, timeoutMs = 700) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** HTTP GET status code, or 0 when nothing answers */
function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
  });
}

/** a port nobody listens on right now (for Docker host ports that collide) */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function findBinary(name, extraDirs = []) {
  const dirs = [
    ...extraDirs,
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ];
  for (const d of dirs) {
    const p = path.join(d, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      /* next */
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// lock: one up/down at a time

function acquireLock() {
  mkdirs(STACK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(LOCK_FILE, String(process.pid), { flag: 'wx' });
      process.on('exit', () => {
        if (readText(LOCK_FILE)?.trim() === String(process.pid)) fs.rmSync(LOCK_FILE, { force: true });
      });
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const holder = Number(readText(LOCK_FILE)?.trim());
      if (holder && holder !== process.pid && pidAlive(holder)) {
        fail(
          `another 'stack.mjs' (pid ${holder}) is running; wait for it or remove ${LOCK_FILE} if it is stale`,
        );
      }
      fs.rmSync(LOCK_FILE, { force: true });
    }
  }
  fail(`cannot take the lock ${LOCK_FILE}`);
}

// ---------------------------------------------------------------------------------------------
// secrets (generated once, persisted in .stack/secrets.env)

function loadSecrets() {
  mkdirs(STACK);
  const stored = parseEnvFile(readText(SECRETS_FILE));
  const gen = () => randomBytes(32).toString('base64url');
  const generated = ['PLATFORM_ADMIN_TOKEN', 'INTERNAL_ASSERTION_SECRET'];
  let changed = false;
  for (const k of generated) {
    if (!stored[k]) {
      stored[k] = gen();
      changed = true;
    }
  }
  if (changed) {
    const keep = Object.fromEntries(generated.map((k) => [k, stored[k]]));
    writeEnvFile(SECRETS_FILE, keep, 'generated by scripts/stack.mjs at first up; kept across down/up');
  }
  // The caller's environment wins over the stored values.
  const effective = {};
  for (const k of generated) effective[k] = process.env[k] || stored[k];
  if (Buffer.byteLength(effective.INTERNAL_ASSERTION_SECRET, 'utf8') < 32) {
    fail('INTERNAL_ASSERTION_SECRET must be at least 32 bytes (base64url of crypto.randomBytes(32))');
  }
  // The local S3 server listens on 127.0.0.1 only; fixed development credentials (the same
  // defaults test/support/infra.ts uses), overridable from the environment.
  effective.S3_ACCESS_KEY_ID = process.env.S3_ACCESS_KEY_ID || 'baas';
  effective.S3_SECRET_ACCESS_KEY = process.env.S3_SECRET_ACCESS_KEY || 'baas-secret-key';
  return effective;
}

// ---------------------------------------------------------------------------------------------
// process bookkeeping (native mode)

function pidFile(name) {
  return path.join(PIDS, `${name}.pid`);
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function cmdlineOf(pid) {
  const proc = readText(`/proc/${pid}/cmdline`);
  if (proc !== null) return proc.split('\0').join(' ').trim();
  const r = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

function readPidRecord(name) {
  const text = readText(pidFile(name));
  if (!text) return null;
  try {
    const rec = JSON.parse(text);
    return Number.isInteger(rec.pid) ? rec : null;
  } catch {
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? { pid, match: null } : null;
  }
}

/** the pid file names a live process whose command line still is the one we started */
function isOurs(rec) {
  if (!rec || !pidAlive(rec.pid)) return false;
  const cmd = cmdlineOf(rec.pid);
  if (!cmd) return false; // gone or zombie
  return rec.match ? cmd.includes(rec.match) : true;
}

/** @type {Map<string, {exited: null | {code: number | null, signal: string | null, error?: string}}>} */
const children = new Map();

function startProcess(name, { bin, args, env, match, cwd = ROOT }) {
  mkdirs(LOGS, PIDS);
  const logFile = path.join(LOGS, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n=== ${new Date().toISOString()} stack.mjs starts: ${bin} ${args.join(' ')}\n`);
  const child = spawn(bin, args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const state = { exited: null };
  children.set(name, state);
  child.on('error', (err) => {
    state.exited = { code: null, signal: null, error: err.message };
  });
  child.on('exit', (code, signal) => {
    state.exited = { code, signal };
  });
  child.unref();
  if (!child.pid) throw new StackError(`cannot start ${name}: ${bin} did not spawn`);
  const rec = { pid: child.pid, match, startedAt: new Date().toISOString(), cmd: [bin, ...args].join(' ') };
  fs.writeFileSync(pidFile(name), JSON.stringify(rec));
  return rec;
}

function exitedMessage(name) {
  const st = children.get(name)?.exited;
  if (!st) return null;
  const how = st.error ?? (st.signal ? `signal ${st.signal}` : `exit code ${st.code}`);
  return `${name} exited (${how}); last lines of .stack/logs/${name}.log:\n${tail(path.join(LOGS, `${name}.log`), 30)}`;
}

async function waitForPort(name, port, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = exitedMessage(name);
    if (dead) throw new StackError(dead);
    if (await tcpOpen(port)) return;
    if (Date.now() > deadline) {
      throw new StackError(
        `${name} does not answer on ${HOST}:${port} after ${timeoutMs / 1000}s; last lines of .stack/logs/${name}.log:\n` +
          tail(path.join(LOGS, `${name}.log`), 30),
      );
    }
    await sleep(200);
  }
}

async function stopProcess(name, graceMs = 10_000) {
  const rec = readPidRecord(name);
  if (!rec) return null;
  if (!isOurs(rec)) {
    fs.rmSync(pidFile(name), { force: true });
    return 'was not running';
  }
  // Started with detached:true, so the process leads its own process group: signal the group
  // (the process and anything it forked), never anything else.
  const signal = (sig) => {
    try {
      process.kill(-rec.pid, sig);
    } catch {
      try {
        process.kill(rec.pid, sig);
      } catch {
        /* gone */
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isOurs(rec)) break;
    await sleep(100);
  }
  let how = 'stopped';
  if (isOurs(rec)) {
    signal('SIGKILL');
    how = `killed (no exit ${graceMs / 1000}s after SIGTERM)`;
    for (let i = 0; i < 50 && isOurs(rec); i++) await sleep(100);
  }
  fs.rmSync(pidFile(name), { force: true });
  return `${how} (pid ${rec.pid})`;
}

// ---------------------------------------------------------------------------------------------
// endpoints as seen from this machine

function nativeEndpoints() {
  return {
    mongoPort: 27017,
    natsPort: 4222,
    redisPort: 6379,
    s3Port: 7070,
    smtpPort: 1025,
    mailpitPort: 8025,
    servicePorts: Object.fromEntries(SERVICES.map((s) => [s.name, s.port])),
  };
}

function stackEnv(ep, secrets, mode) {
  const env = {
    BASE_URL: `http://${HOST}:${GATEWAY_PORT}`,
    PLATFORM_ADMIN_TOKEN: secrets.PLATFORM_ADMIN_TOKEN,
    MAIL_API_URL: `http://${HOST}:${ep.mailpitPort}`,
    MONGO_URL: `mongodb://${HOST}:${ep.mongoPort}`,
    NATS_URL: `nats://${HOST}:${ep.natsPort}`,
    REDIS_URL: `redis://${HOST}:${ep.redisPort}`,
    S3_ENDPOINT: `http://${HOST}:${ep.s3Port}`,
    S3_REGION,
    S3_BUCKET,
    S3_ACCESS_KEY_ID: secrets.S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: secrets.S3_SECRET_ACCESS_KEY,
    SMTP_HOST: HOST,
    SMTP_PORT: String(ep.smtpPort),
    INTERNAL_ASSERTION_SECRET: secrets.INTERNAL_ASSERTION_SECRET,
  };
  for (const s of SERVICES) {
    if (s.name !== 'gateway') env[s.urlVar] = `http://${HOST}:${ep.servicePorts[s.name]}`;
  }
  env.GATEWAY_PORT = String(GATEWAY_PORT);
  env.STACK_MODE = mode;
  return env;
}

function writeStackEnv(env) {
  writeEnvFile(ENV_FILE, env); // plain KEY=value lines only (clients parse it naively)
}

// ---------------------------------------------------------------------------------------------
// native infrastructure

function runInstallInfra() {
  if (process.env.BAAS_SKIP_INSTALL === '1') return;
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'install-infra.sh')], {
    stdio: 'inherit',
    cwd: ROOT,
  });
  if (r.status !== 0) fail('scripts/install-infra.sh failed (see above)');
}

function toolBinary(name) {
  const p = path.join(TOOLS_BIN, name);
  try {
    fs.accessSync(p, fs.constants.X_OK);
  } catch {
    throw new StackError(`${p} is missing; run: bash scripts/install-infra.sh`);
  }
  return p;
}

/**
 * Ensures one infrastructure process. policy 'always' = ours (started unless already running from
 * an earlier up); 'if-free' = only when nothing answers on the port (e.g. the machine's own Redis).
 * A foreign server already answering on the port is used as it is, and never stopped by `down`.
 */
async function ensureInfra(name, { port, extraPorts = [], policy, build }) {
  const rec = readPidRecord(name);
  if (isOurs(rec)) {
    await waitForPort(name, port);
    for (const p of extraPorts) await waitForPort(name, p);
    return `running (pid ${rec.pid})`;
  }
  if (rec) fs.rmSync(pidFile(name), { force: true });
  if (await tcpOpen(port)) {
    return policy === 'if-free'
      ? `using the server already answering on ${HOST}:${port} (not started by this script)`
      : `WARNING: something this script did not start already answers on ${HOST}:${port}; using it`;
  }
  const spec = build();
  const started = startProcess(name, spec);
  await waitForPort(name, port);
  for (const p of extraPorts) await waitForPort(name, p);
  return `started (pid ${started.pid})`;
}

async function ensureS3(secrets, s3Port) {
  const root = path.join(DATA, 's3');
  // not "s3-meta": versitygw rejects a sidecar path that merely starts with the root path
  const sidecar = path.join(DATA, 'meta-s3');
  const modeFile = path.join(DATA, 's3-meta-mode');
  mkdirs(root);
  const args = (metaMode) => {
    const meta = metaMode === 'sidecar' ? ['--sidecar', sidecar] : metaMode === 'nometa' ? ['--nometa'] : [];
    // global flags before the subcommand, backend flags (--sidecar/--nometa) after it
    return ['--port', `${HOST}:${s3Port}`, '--health', '/health', 'posix', ...meta, root];
  };
  const env = {
    ...process.env,
    ROOT_ACCESS_KEY: secrets.S3_ACCESS_KEY_ID,
    ROOT_SECRET_KEY: secrets.S3_SECRET_ACCESS_KEY,
  };
  const bin = toolBinary('versitygw');
  const chosen = process.env.BAAS_S3_META || readText(modeFile)?.trim();
  if (chosen && !['xattr', 'sidecar', 'nometa'].includes(chosen)) {
    throw new StackError(`BAAS_S3_META / ${modeFile} must be xattr, sidecar or nometa (got ${chosen})`);
  }
  const build = (metaMode) => () => {
    if (metaMode === 'sidecar') mkdirs(sidecar);
    return { bin, args: args(metaMode), env, match: 'versitygw' };
  };
  try {
    const result = await ensureInfra('s3', {
      port: s3Port,
      policy: 'always',
      build: build(chosen || 'xattr'),
    });
    if (!chosen && result.startsWith('started')) fs.writeFileSync(modeFile, 'xattr\n');
    return result + (chosen && chosen !== 'xattr' ? `, metadata: ${chosen}` : '');
  } catch (err) {
    // versitygw's posix backend keeps object metadata in user xattrs and refuses to start
    // ("xattr check failed") on filesystems without them: fall back to a sidecar directory.
    if (chosen || !/xattr check failed/i.test(String(err.message))) throw err;
    log('s3: the filesystem under .stack/data has no user xattrs; using --sidecar .stack/data/meta-s3');
    const result = await ensureInfra('s3', { port: s3Port, policy: 'always', build: build('sidecar') });
    fs.writeFileSync(modeFile, 'sidecar\n');
    return `${result}, metadata: sidecar`;
  }
}

async function upNativeInfra(secrets) {
  mkdirs(DATA, LOGS, PIDS);
  const ep = nativeEndpoints();
  const results = [];
  const report = (name, what) => {
    results.push([name, what]);
    log(`${name.padEnd(9)} ${what}`);
  };

  report(
    'ferretdb',
    await ensureInfra('ferretdb', {
      port: ep.mongoPort,
      policy: 'always',
      build: () => {
        mkdirs(path.join(DATA, 'ferretdb'), path.join(DATA, 'ferretdb-state'));
        return {
          bin: toolBinary('ferretdb'),
          args: [
            '--handler=sqlite',
            `--sqlite-url=file:${path.join(DATA, 'ferretdb')}/`,
            `--state-dir=${path.join(DATA, 'ferretdb-state')}`,
            `--listen-addr=${HOST}:${ep.mongoPort}`,
            '--debug-addr=-',
            '--telemetry=disable',
          ],
          env: { ...process.env },
          match: 'ferretdb',
        };
      },
    }),
  );

  report(
    'nats',
    await ensureInfra('nats', {
      port: ep.natsPort,
      policy: 'if-free',
      build: () => {
        const bin = findBinary('nats-server');
        if (!bin) throw new StackError('nats-server not found; run: bash scripts/install-infra.sh');
        mkdirs(path.join(DATA, 'nats'));
        return {
          bin,
          args: [
            '-a',
            HOST,
            '-p',
            String(ep.natsPort),
            '-js',
            '-sd',
            path.join(DATA, 'nats'),
            '-n',
            'baas-dev',
          ],
          env: { ...process.env },
          match: 'nats-server',
        };
      },
    }),
  );

  report(
    'redis',
    await ensureInfra('redis', {
      port: ep.redisPort,
      policy: 'if-free',
      build: () => {
        const bin = findBinary('redis-server');
        if (!bin) throw new StackError('redis-server not found; run: bash scripts/install-infra.sh');
        mkdirs(path.join(DATA, 'redis'));
        return {
          bin,
          args: [
            '--bind',
            HOST,
            '--port',
            String(ep.redisPort),
            '--dir',
            path.join(DATA, 'redis'),
            '--save',
            '60 1',
            '--appendonly',
            'no',
            '--daemonize',
            'no',
          ],
          env: { ...process.env },
          match: 'redis-server',
        };
      },
    }),
  );

  report('s3', await ensureS3(secrets, ep.s3Port));

  report(
    'mailpit',
    await ensureInfra('mailpit', {
      port: ep.smtpPort,
      extraPorts: [ep.mailpitPort],
      policy: 'always',
      build: () => ({
        bin: toolBinary('mailpit'),
        args: [
          '--smtp',
          `${HOST}:${ep.smtpPort}`,
          '--listen',
          `${HOST}:${ep.mailpitPort}`,
          '--database',
          path.join(DATA, 'mailpit.db'),
          '--smtp-auth-accept-any',
          '--smtp-auth-allow-insecure',
          '--disable-version-check',
        ],
        env: { ...process.env },
        match: 'mailpit',
      }),
    }),
  );

  await ensureBucketOrFail(secrets, ep);
  return ep;
}

async function ensureBucketOrFail(secrets, ep) {
  try {
    const r = await ensureBucket({
      endpoint: `http://${HOST}:${ep.s3Port}`,
      region: S3_REGION,
      bucket: S3_BUCKET,
      accessKeyId: secrets.S3_ACCESS_KEY_ID,
      secretAccessKey: secrets.S3_SECRET_ACCESS_KEY,
      waitSeconds: 30,
    });
    log(`${'bucket'.padEnd(9)} ${S3_BUCKET} ${r}`);
  } catch (err) {
    throw new StackError(
      `cannot create the S3 bucket ${S3_BUCKET} at http://${HOST}:${ep.s3Port}: ${err.message}` +
        ' (if another S3 server answers on that port, its credentials differ from .stack/secrets.env)',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// services (native)

function serviceEnv(svc, ep, secrets) {
  const env = { ...process.env }; // carries every contract variable the caller set
  const url = (name) => `http://${HOST}:${ep.servicePorts[name]}`;
  Object.assign(env, {
    PORT: String(svc.port),
    MONGO_URL: `mongodb://${HOST}:${ep.mongoPort}`,
    MONGO_DB: svc.db,
    DATABASE_URL: `mongodb://${HOST}:${ep.mongoPort}/${svc.db}`,
    NATS_URL: `nats://${HOST}:${ep.natsPort}`,
    REDIS_URL: `redis://${HOST}:${ep.redisPort}`,
    INTERNAL_ASSERTION_SECRET: secrets.INTERNAL_ASSERTION_SECRET,
    LOG_LEVEL: process.env.LOG_LEVEL || 'info',
  });
  if (svc.name === 'gateway') {
    Object.assign(env, {
      GATEWAY_PORT: String(GATEWAY_PORT),
      AUTH_URL: url('auth'),
      DATA_URL: url('data'),
      STORAGE_URL: url('storage'),
      MAIL_URL: url('mail'),
      JANITOR_URL: url('janitor'),
      PLATFORM_ADMIN_TOKEN: secrets.PLATFORM_ADMIN_TOKEN,
    });
  }
  if (svc.name === 'storage') {
    Object.assign(env, {
      S3_ENDPOINT: `http://${HOST}:${ep.s3Port}`,
      S3_REGION,
      S3_BUCKET,
      S3_ACCESS_KEY_ID: secrets.S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: secrets.S3_SECRET_ACCESS_KEY,
      STORAGE_DRIVER: process.env.STORAGE_DRIVER || 's3',
      STORAGE_LOCAL_DIR: process.env.STORAGE_LOCAL_DIR || path.join(DATA, 'files'),
      PUBLIC_FILES_BASE_URL: process.env.PUBLIC_FILES_BASE_URL || `http://${HOST}:${GATEWAY_PORT}/files`,
    });
  }
  if (svc.name === 'mail') {
    Object.assign(env, {
      SMTP_HOST: HOST,
      SMTP_PORT: String(ep.smtpPort),
      MAIL_FROM: process.env.MAIL_FROM || 'no-reply@baas.local',
    });
  }
  for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k];
  return env;
}

function runBuild() {
  if (process.env.BAAS_SKIP_BUILD === '1') return;
  log('npm run build');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', 'build'], { stdio: 'inherit', cwd: ROOT });
  if (r.status !== 0) {
    throw new StackError(
      'npm run build failed (see above); the infrastructure stays up, fix the build and run up again',
    );
  }
}

async function startServices(ep, secrets) {
  for (const svc of SERVICES) {
    const main = path.join(ROOT, 'services', svc.name, 'dist', 'main.js');
    const rel = path.relative(ROOT, main);
    const rec = readPidRecord(svc.name);
    if (isOurs(rec)) {
      log(`${svc.name.padEnd(9)} running (pid ${rec.pid}, port ${svc.port})`);
      continue;
    }
    if (rec) fs.rmSync(pidFile(svc.name), { force: true });
    if (!fs.existsSync(main)) throw new StackError(`${rel} does not exist (did npm run build produce it?)`);
    if (await tcpOpen(svc.port)) {
      throw new StackError(
        `port ${svc.port} for ${svc.name} is taken by a process this script did not start; stop it and run up again`,
      );
    }
    const started = startProcess(svc.name, {
      bin: process.execPath,
      args: ['--enable-source-maps', rel],
      env: serviceEnv(svc, ep, secrets),
      match: rel,
    });
    log(`${svc.name.padEnd(9)} started (pid ${started.pid}, port ${svc.port})`);
  }
}

/** Waits until the gateway's /readyz (and every service's own /readyz) answers 200. */
async function waitReady(ep) {
  const timeoutS = Number(process.env.BAAS_UP_TIMEOUT_SECONDS || 60);
  const url = `http://${HOST}:${GATEWAY_PORT}/readyz`;
  log(`waiting up to ${timeoutS}s for GET ${url} = 200`);
  const deadline = Date.now() + timeoutS * 1000;
  let last = 0;
  let notReady = [];
  while (Date.now() < deadline) {
    const dead = SERVICES.filter((s) => children.get(s.name)?.exited || !isOurs(readPidRecord(s.name)));
    if (ep.native && dead.length) {
      throw new StackError(`service(s) exited during start-up: ${dead.map((s) => s.name).join(', ')}`);
    }
    last = await httpStatus(url);
    if (last === 200) {
      const codes = await Promise.all(
        SERVICES.map(async (s) => [
          s.name,
          await httpStatus(`http://${HOST}:${ep.servicePorts[s.name]}/readyz`),
        ]),
      );
      notReady = codes.filter(([, c]) => c !== 200).map(([n, c]) => `${n}=${c || 'no answer'}`);
      if (notReady.length === 0) return;
    }
    await sleep(500);
  }
  throw new StackError(
    last === 200
      ? `the gateway is ready but not every service is after ${timeoutS}s: ${notReady.join(', ')}`
      : `${url} did not answer 200 within ${timeoutS}s (last status: ${last || 'no answer'})`,
  );
}

async function printServiceDiagnostics(ep) {
  for (const svc of SERVICES) {
    const rec = readPidRecord(svc.name);
    const alive = isOurs(rec);
    const port = ep.servicePorts[svc.name];
    const ready = await httpStatus(`http://${HOST}:${port}/readyz`);
    const st = children.get(svc.name)?.exited;
    const exited = st ? `, exited: ${st.error ?? (st.signal ? st.signal : `code ${st.code}`)}` : '';
    process.stderr.write(
      `\n----- ${svc.name}: ${alive ? `pid ${rec.pid}` : 'not running'}${exited}, ` +
        `GET :${port}/readyz -> ${ready || 'no answer'}; tail of .stack/logs/${svc.name}.log -----\n` +
        `${tail(path.join(LOGS, `${svc.name}.log`), 40)}\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Docker Compose mode

function dockerAvailable() {
  const r = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
  return r.status === 0;
}

function chooseMode() {
  const forced = process.env.BAAS_STACK_MODE;
  if (forced) {
    if (!['native', 'docker'].includes(forced))
      fail(`BAAS_STACK_MODE must be native or docker (got ${forced})`);
    return forced;
  }
  return dockerAvailable() ? 'docker' : 'native';
}

/** host port variables of docker-compose.yml, with their defaults */
const COMPOSE_PORT_VARS = {
  MONGO_HOST_PORT: 27017,
  NATS_HOST_PORT: 4222,
  REDIS_HOST_PORT: 6379,
  S3_HOST_PORT: 7070,
  SMTP_HOST_PORT: 1025,
  MAILPIT_HOST_PORT: 8025,
  AUTH_HOST_PORT: 8081,
  DATA_HOST_PORT: 8082,
  STORAGE_HOST_PORT: 8083,
  MAIL_HOST_PORT: 8084,
  JANITOR_HOST_PORT: 8085,
};

/** Host ports for the published container ports: chosen once (a taken default, e.g. the
 * machine's own Redis on 6379, gets a free port instead) and kept in .stack/compose-ports.env. */
async function composePorts() {
  const stored = parseEnvFile(readText(COMPOSE_PORTS_FILE));
  const out = {};
  for (const [k, def] of Object.entries(COMPOSE_PORT_VARS)) {
    if (process.env[k]) out[k] = process.env[k];
    else if (stored[k]) out[k] = stored[k];
    else out[k] = String((await tcpOpen(def)) ? await freePort() : def);
  }
  writeEnvFile(COMPOSE_PORTS_FILE, out, 'host ports of docker-compose.yml chosen by scripts/stack.mjs');
  return out;
}

function composeEndpoints(ports) {
  return {
    mongoPort: Number(ports.MONGO_HOST_PORT),
    natsPort: Number(ports.NATS_HOST_PORT),
    redisPort: Number(ports.REDIS_HOST_PORT),
    s3Port: Number(ports.S3_HOST_PORT),
    smtpPort: Number(ports.SMTP_HOST_PORT),
    mailpitPort: Number(ports.MAILPIT_HOST_PORT),
    servicePorts: {
      auth: Number(ports.AUTH_HOST_PORT),
      data: Number(ports.DATA_HOST_PORT),
      storage: Number(ports.STORAGE_HOST_PORT),
      mail: Number(ports.MAIL_HOST_PORT),
      janitor: Number(ports.JANITOR_HOST_PORT),
      gateway: GATEWAY_PORT,
    },
  };
}

function compose(args, env, opts = {}) {
  return spawnSync('docker', ['compose', '-f', COMPOSE_FILE, ...args], {
    stdio: opts.capture ? 'pipe' : 'inherit',
    encoding: 'utf8',
    cwd: ROOT,
    env,
  });
}

async function upDocker(infraOnly) {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status !== 0) {
    fail(
      'a Docker engine answers but the "docker compose" plugin is missing; install it or use BAAS_STACK_MODE=native',
    );
  }
  mkdirs(DATA, LOGS);
  const secrets = loadSecrets();
  const ports = await composePorts();
  const env = {
    ...process.env,
    ...secrets,
    ...ports,
    GATEWAY_PORT: String(GATEWAY_PORT),
    S3_BUCKET,
    S3_REGION,
  };
  fs.writeFileSync(MODE_FILE, 'docker\n');
  const args = ['up', '-d', '--wait'];
  if (infraOnly) args.push('mongo', 'nats', 'redis', 's3', 'mailpit');
  else args.push('--build');
  log(`docker compose ${args.join(' ')}`);
  const r = compose(args, env);
  const ep = composeEndpoints(ports);
  writeStackEnv(stackEnv(ep, secrets, 'docker'));
  if (r.status !== 0) {
    compose(['ps', '-a'], env);
    compose(['logs', '--tail', '40'], env);
    fail('docker compose up failed (see above)');
  }
  await ensureBucketOrFail(secrets, ep);
  if (!infraOnly) await waitReady(ep);
  log(`up (docker). BASE_URL=http://${HOST}:${GATEWAY_PORT}; variables in .stack/env`);
}

function downDocker() {
  const secrets = parseEnvFile(readText(SECRETS_FILE));
  const ports = parseEnvFile(readText(COMPOSE_PORTS_FILE));
  const env = { ...process.env, ...secrets, ...ports };
  // no -v: named volumes (the data) survive
  const r = compose(['down', '--remove-orphans'], env);
  if (r.status !== 0) fail('docker compose down failed');
  fs.rmSync(MODE_FILE, { force: true });
}

// ---------------------------------------------------------------------------------------------
// commands

async function cmdUp(infraOnly) {
  acquireLock();
  const mode = chooseMode();
  if (mode === 'docker') return upDocker(infraOnly);

  log(
    `native mode${process.env.BAAS_STACK_MODE ? '' : ' (no Docker engine answers)'}${infraOnly ? ', infrastructure only' : ''}`,
  );
  runInstallInfra();
  const secrets = loadSecrets();
  fs.writeFileSync(MODE_FILE, 'native\n');
  let ep;
  try {
    ep = await upNativeInfra(secrets);
  } catch (err) {
    if (err instanceof StackError) fail(err.message);
    throw err;
  }
  writeStackEnv(stackEnv(ep, secrets, 'native'));
  if (infraOnly) {
    log('infrastructure is up; variables in .stack/env');
    return;
  }
  let built = false;
  try {
    runBuild();
    built = true;
    await startServices(ep, secrets);
    await waitReady({ ...ep, native: true });
  } catch (err) {
    if (!(err instanceof StackError)) throw err;
    process.stderr.write(`[stack] ERROR: ${err.message}\n`);
    if (built) await printServiceDiagnostics(ep);
    process.stderr.write('\n[stack] the processes stay up for inspection; stop them with: npm run down\n');
    process.exit(1);
  }
  log(`up. BASE_URL=http://${HOST}:${GATEWAY_PORT}; variables in .stack/env`);
}

async function stopAll(names) {
  const results = await Promise.all(names.map(async (n) => [n, await stopProcess(n)]));
  for (const [n, r] of results) if (r) log(`${n.padEnd(9)} ${r}`);
  return results.some(([, r]) => r);
}

async function cmdDown() {
  acquireLock();
  const mode = readText(MODE_FILE)?.trim();
  // services first (they hold connections to the infrastructure), then the infrastructure
  const svcNames = [...SERVICES].reverse().map((s) => s.name);
  let any = await stopAll(svcNames);
  const known = new Set([...svcNames, ...INFRA_NAMES]);
  const others = fs.existsSync(PIDS)
    ? fs
        .readdirSync(PIDS)
        .filter((f) => f.endsWith('.pid'))
        .map((f) => f.slice(0, -4))
        .filter((n) => !known.has(n))
    : [];
  any = (await stopAll([...INFRA_NAMES, ...others])) || any;
  if (mode === 'docker' || process.env.BAAS_STACK_MODE === 'docker') {
    if (dockerAvailable()) {
      downDocker();
      any = true;
    } else {
      log('the last up used Docker, but no Docker engine answers now; nothing to stop there');
    }
  }
  if (mode === 'native') fs.rmSync(MODE_FILE, { force: true });
  log(any ? 'down (data kept in .stack/data)' : 'nothing was running');
}

async function cmdRestart() {
  const svcNames = [...SERVICES].reverse().map((s) => s.name);
  acquireLock();
  await stopAll(svcNames);
  fs.rmSync(LOCK_FILE, { force: true });
  await cmdUp(false);
}

async function cmdStatus() {
  const mode = readText(MODE_FILE)?.trim() ?? 'down';
  log(`mode: ${mode}`);
  if (mode === 'docker') {
    const ports = parseEnvFile(readText(COMPOSE_PORTS_FILE));
    compose(['ps', '-a'], { ...process.env, ...parseEnvFile(readText(SECRETS_FILE)), ...ports });
  }
  const ep =
    mode === 'docker' ? composeEndpoints(parseEnvFile(readText(COMPOSE_PORTS_FILE))) : nativeEndpoints();
  const rows = [];
  const infraPorts = {
    ferretdb: [ep.mongoPort],
    nats: [ep.natsPort],
    redis: [ep.redisPort],
    s3: [ep.s3Port],
    mailpit: [ep.smtpPort, ep.mailpitPort],
  };
  let allUp = true;
  for (const name of INFRA_NAMES) {
    const rec = readPidRecord(name);
    const ours = isOurs(rec);
    const answers = await Promise.all(infraPorts[name].map((p) => tcpOpen(p)));
    const ok = answers.every(Boolean);
    allUp &&= ok;
    rows.push([
      mode === 'docker' && name === 'ferretdb' ? 'mongo' : name,
      ours ? `pid ${rec.pid}` : mode === 'docker' ? 'container' : ok ? 'not ours' : '-',
      infraPorts[name].map((p, i) => `${p}:${answers[i] ? 'open' : 'closed'}`).join(' '),
    ]);
  }
  for (const svc of SERVICES) {
    const rec = readPidRecord(svc.name);
    const ours = isOurs(rec);
    const port = ep.servicePorts[svc.name];
    const ready = await httpStatus(`http://${HOST}:${port}/readyz`);
    rows.push([
      svc.name,
      ours ? `pid ${rec.pid}` : mode === 'docker' ? 'container' : '-',
      `${port}:readyz=${ready || 'no answer'}`,
    ]);
  }
  for (const [a, b, c] of rows) log(`${a.padEnd(9)} ${b.padEnd(11)} ${c}`);
  const gw = await httpStatus(`http://${HOST}:${GATEWAY_PORT}/readyz`);
  log(`infrastructure: ${allUp ? 'up' : 'not (fully) up'}; gateway ready: ${gw === 200 ? 'yes' : 'no'}`);
}

function usage(code) {
  process.stdout.write(
    'usage: node scripts/stack.mjs up [--infra-only] | down | status | restart\n' +
      '  up            start infrastructure and the six services, wait for the gateway /readyz\n' +
      '  up --infra-only   infrastructure only (MongoDB-compatible, NATS, Redis, S3, Mailpit)\n' +
      '  down          stop what up started (data stays in .stack/data)\n' +
      '  status        show processes, ports and readiness\n' +
      '  restart       stop the services (not the infrastructure), then up\n',
  );
  process.exit(code);
}

const [cmd, ...rest] = process.argv.slice(2);
const unknown = rest.filter((a) => a !== '--infra-only');
if (unknown.length) usage(2);
try {
  switch (cmd) {
    case 'up':
      await cmdUp(rest.includes('--infra-only'));
      break;
    case 'down':
      await cmdDown();
      break;
    case 'status':
      await cmdStatus();
      break;
    case 'restart':
      await cmdRestart();
      break;
    case '-h':
    case '--help':
    case 'help':
      usage(0);
      break;
    default:
      usage(2);
  }
} catch (err) {
  if (err instanceof StackError) fail(err.message);
  throw err;
}
