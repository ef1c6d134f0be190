// Native infrastructure (no Docker): FerretDB (MongoDB mode), NATS, Redis, versitygw (S3) and
// Mailpit; PostgreSQL has a module of its own (postgres.mjs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBucket } from '../s3-ensure-bucket.mjs';
import { DATA, LOGS, PIDS, ROOT, S3_BUCKET, S3_REGION, SERVICES, TOOLS_BIN } from './context.mjs';
import { NATS_CONFIG, NATS_PASSWORD_VARS, NATS_USERS } from './nats.mjs';
import {
  cmdlineOf,
  isOurs,
  pidFile,
  readPidRecord,
  startProcess,
  stopProcess,
  waitForPort,
} from './processes.mjs';
import { HOST, StackError, fail, findBinary, log, mkdirs, readText, tcpOpen } from './util.mjs';

/** Infrastructure process names (pid files), in the order `down` stops them. */
export const INFRA_NAMES = ['ferretdb', 'postgres', 'nats', 'redis', 's3', 'mailpit'];

export function nativeEndpoints() {
  return {
    mongoPort: 27017,
    // the stack's own NATS with users (the machine's may answer on 4222 without any)
    natsPort: 4223,
    redisPort: 6379,
    s3Port: 7070,
    smtpPort: 1025,
    mailpitPort: 8025,
    servicePorts: Object.fromEntries(SERVICES.map((s) => [s.name, s.port])),
  };
}

/** @param {'postgres' | 'mongodb'} store  what to install besides the common tools */
export function runInstallInfra(store) {
  if (process.env.BAAS_SKIP_INSTALL === '1') return;
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'install-infra.sh')], {
    stdio: 'inherit',
    cwd: ROOT,
    env: { ...process.env, BAAS_STORE: store },
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
export async function ensureInfra(name, { port, extraPorts = [], policy, build }) {
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

function ensureFerretDb(port) {
  return ensureInfra('ferretdb', {
    port,
    policy: 'always',
    build: () => {
      mkdirs(path.join(DATA, 'ferretdb'), path.join(DATA, 'ferretdb-state'));
      return {
        bin: toolBinary('ferretdb'),
        args: [
          '--handler=sqlite',
          `--sqlite-url=file:${path.join(DATA, 'ferretdb')}/`,
          `--state-dir=${path.join(DATA, 'ferretdb-state')}`,
          `--listen-addr=${HOST}:${port}`,
          '--debug-addr=-',
          '--telemetry=disable',
        ],
        env: { ...process.env },
        match: 'ferretdb',
      };
    },
  });
}

/**
 * The stack's own NATS, never the machine's (which may run without authentication on 4222):
 * deploy/nats/dev.conf, one user per service (passwords from .stack/secrets.env through the
 * server's environment), JetStream in .stack/data/nats.
 */
async function ensureNats(secrets, port) {
  // Started by an earlier up with another configuration (the permissions changed since): start
  // it again. Not a reload (SIGHUP): nats-server 2.9 reloads without the -js of its command line
  // and turns JetStream off.
  const stamp = path.join(DATA, 'nats-config.sha256');
  const digest = createHash('sha256')
    .update(fs.readFileSync(NATS_CONFIG))
    .update(fs.readFileSync(path.join(path.dirname(NATS_CONFIG), 'permissions.conf')))
    .digest('hex');
  if (isOurs(readPidRecord('nats')) && readText(stamp)?.trim() !== digest) {
    log('nats      its configuration changed: restarting it');
    await stopProcess('nats');
  }
  const result = await ensureInfra('nats', {
    port,
    policy: 'always',
    build: () => {
      // the one install-infra builds (2.11: consumers with several filter subjects) before the
      // distribution's (Debian 12: 2.9, where such a consumer takes every event)
      const bin = findBinary('nats-server', [TOOLS_BIN]);
      if (!bin) throw new StackError('nats-server not found; run: bash scripts/install-infra.sh');
      mkdirs(path.join(DATA, 'nats'));
      const env = { ...process.env };
      for (const k of NATS_PASSWORD_VARS) env[k] = secrets[k];
      return {
        bin,
        args: ['-c', NATS_CONFIG, '-a', HOST, '-p', String(port), '-js', '-sd', path.join(DATA, 'nats')],
        env,
        match: 'nats-server',
      };
    },
  });
  fs.writeFileSync(stamp, `${digest}\n`);
  return `${result}, users: ${NATS_USERS.join(', ')} (deploy/nats/dev.conf)`;
}

/**
 * The integration tier's NATS: JetStream without users on 4222 (TEST_NATS_URL's default), since
 * its suites publish every event type and janitor commands. The machine's own when one answers
 * there; otherwise one this script starts (stopped by down).
 */
function ensureTestNats() {
  return ensureInfra('nats-test', {
    port: 4222,
    policy: 'if-free',
    build: () => {
      const bin = findBinary('nats-server', [TOOLS_BIN]);
      if (!bin) throw new StackError('nats-server not found; run: bash scripts/install-infra.sh');
      mkdirs(path.join(DATA, 'nats-test'));
      return {
        bin,
        args: ['-a', HOST, '-p', '4222', '-js', '-sd', path.join(DATA, 'nats-test')],
        env: { ...process.env },
        match: 'nats-server',
      };
    },
  });
}

function ensureRedis(port) {
  return ensureInfra('redis', {
    port,
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
          String(port),
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
  });
}

async function ensureS3(secrets, s3Port) {
  const root = path.join(DATA, 's3');
  // not "s3-meta": versitygw rejects a sidecar path that merely starts with the root path
  const sidecar = path.join(DATA, 'meta-s3');
  const modeFile = path.join(DATA, 's3-meta-mode');
  mkdirs(root);
  const args = (metaMode) => {
    const meta = metaMode === 'sidecar' ? ['--sidecar', sidecar] : metaMode === 'nometa' ? ['--nometa'] : [];
    // global flags before the subcommand, backend flags (--sidecar/--nometa) after it;
    // --keep-alive: without it every request is answered `Connection: close`, so the storage
    // service opened a connection per object; --quiet: no access-log line per request
    const global = ['--port', `${HOST}:${s3Port}`, '--health', '/health', '--keep-alive', '--quiet'];
    return [...global, 'posix', ...meta, root];
  };
  const env = {
    ...process.env,
    ROOT_ACCESS_KEY: secrets.S3_ACCESS_KEY_ID,
    ROOT_SECRET_KEY: secrets.S3_SECRET_ACCESS_KEY,
  };
  const bin = toolBinary('versitygw');
  // Started by an earlier up without the flags of today: start it again with them.
  const running = readPidRecord('s3');
  if (isOurs(running) && !cmdlineOf(running.pid).includes('--keep-alive')) {
    log('s3        started without --keep-alive by an earlier up: restarting it');
    await stopProcess('s3');
  }
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

function ensureMailpit(ep) {
  return ensureInfra('mailpit', {
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
  });
}

export function report(name, what) {
  log(`${name.padEnd(9)} ${what}`);
}

/**
 * Everything but the database server of the PostgreSQL store (postgres.mjs): FerretDB in
 * MongoDB mode, then NATS, Redis, S3 with its bucket, Mailpit.
 * @param {'postgres' | 'mongodb'} store
 */
export async function upNativeInfra(secrets, store, ep) {
  mkdirs(DATA, LOGS, PIDS);
  if (store === 'mongodb') report('ferretdb', await ensureFerretDb(ep.mongoPort));
  report('nats', await ensureNats(secrets, ep.natsPort));
  report('nats-test', await ensureTestNats());
  report('redis', await ensureRedis(ep.redisPort));
  report('s3', await ensureS3(secrets, ep.s3Port));
  report('mailpit', await ensureMailpit(ep));
  await ensureBucketOrFail(secrets, ep.s3Port);
}

export async function ensureBucketOrFail(secrets, s3Port) {
  try {
    const r = await ensureBucket({
      endpoint: `http://${HOST}:${s3Port}`,
      region: S3_REGION,
      bucket: S3_BUCKET,
      accessKeyId: secrets.S3_ACCESS_KEY_ID,
      secretAccessKey: secrets.S3_SECRET_ACCESS_KEY,
      waitSeconds: 30,
    });
    log(`${'bucket'.padEnd(9)} ${S3_BUCKET} ${r}`);
  } catch (err) {
    throw new StackError(
      `cannot create the S3 bucket ${S3_BUCKET} at http://${HOST}:${s3Port}: ${err.message}` +
        ' (if another S3 server answers on that port, its credentials differ from .stack/secrets.env)',
    );
  }
}
