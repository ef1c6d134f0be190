// PostgreSQL for the default store (native mode): the server answering at POSTGRES_ADMIN_URL, or,
// when none answers on a loopback address, a cluster of our own in .stack/data/postgres (from
// Debian's postgresql package, run as the `postgres` OS user when we are root). Then one role and
// one database per data-owning service (deploy/postgres/init-service-databases.sh).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DATA, DATA_SERVICES, PG_INIT_SCRIPT } from './context.mjs';
import { isOurs, pidFile, readPidRecord, startProcess, waitForPort } from './processes.mjs';
import { StackError, findBinary, log, mkdirs, readText, sleep, tcpOpen } from './util.mjs';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const CLUSTER_DIR = path.join(DATA, 'postgres');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The libpq variables of a URL, so that no password appears on a command line. */
function libpqEnv(url) {
  const u = new URL(url);
  const env = {
    PGHOST: u.hostname.replace(/^\[|\]$/g, ''),
    PGPORT: u.port || '5432',
    PGUSER: decodeURIComponent(u.username) || 'postgres',
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)) || 'postgres',
    PGCONNECT_TIMEOUT: '5',
  };
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  const sslmode = u.searchParams.get('sslmode');
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

/** The newest Debian PostgreSQL (/usr/lib/postgresql/<major>/bin), else one on PATH. */
function serverBinDir() {
  const base = '/usr/lib/postgresql';
  const majors = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length) return path.join(base, majors[0], 'bin');
  const initdb = findBinary('initdb');
  return initdb ? path.dirname(initdb) : null;
}

function psqlBinary() {
  const dir = serverBinDir();
  const bin = findBinary('psql', dir ? [dir] : []);
  if (!bin)
    throw new StackError('psql not found; run: bash scripts/install-infra.sh (installs postgresql-client)');
  return bin;
}

/** uid/gid to run the server as: ours, unless we are root (PostgreSQL refuses root). */
function serverUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const line = (readText('/etc/passwd') ?? '').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) {
    throw new StackError(
      "running as root, and there is no 'postgres' OS user to run PostgreSQL as; install Debian's postgresql package (bash scripts/install-infra.sh)",
    );
  }
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function run(bin, args, opts) {
  return spawnSync(bin, args, { encoding: 'utf8', ...opts });
}

/** initdb into .stack/data/postgres (first up only): scram passwords, UTF8, C.UTF-8 collation. */
function initCluster(binDir, superuser, password, user) {
  mkdirs(CLUSTER_DIR);
  fs.chmodSync(CLUSTER_DIR, 0o700);
  const pwfile = path.join(DATA, '.postgres-pwfile');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (user.uid !== undefined) {
      fs.chownSync(CLUSTER_DIR, user.uid, user.gid);
      fs.chownSync(pwfile, user.uid, user.gid);
      if (run('test', ['-w', CLUSTER_DIR, '-a', '-r', pwfile], user).status !== 0) {
        throw new StackError(
          `the postgres OS user cannot reach ${CLUSTER_DIR} (a parent directory is not searchable by others); ` +
            'start PostgreSQL yourself and set POSTGRES_ADMIN_URL, or move the repository',
        );
      }
    }
    const base = ['-D', CLUSTER_DIR, '-U', superuser, `--pwfile=${pwfile}`, '-E', 'UTF8'];
    const auth = ['--auth-local=scram-sha-256', '--auth-host=scram-sha-256'];
    let r = run(path.join(binDir, 'initdb'), [...base, ...auth, '--locale=C.UTF-8'], user);
    if (r.status !== 0 && /locale/i.test(r.stderr)) {
      fs.rmSync(CLUSTER_DIR, { recursive: true, force: true });
      mkdirs(CLUSTER_DIR);
      if (user.uid !== undefined) fs.chownSync(CLUSTER_DIR, user.uid, user.gid);
      r = run(path.join(binDir, 'initdb'), [...base, ...auth, '--no-locale'], user);
    }
    if (r.status !== 0) {
      fs.rmSync(CLUSTER_DIR, { recursive: true, force: true });
      throw new StackError(`initdb failed:\n${r.stdout}${r.stderr}`);
    }
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

async function startCluster(admin, host, port) {
  const binDir = serverBinDir();
  if (!binDir) throw new StackError('PostgreSQL is not installed; run: bash scripts/install-infra.sh');
  const user = serverUser();
  if (!fs.existsSync(path.join(CLUSTER_DIR, 'PG_VERSION'))) {
    log(`postgres  initdb ${CLUSTER_DIR} (first up)`);
    initCluster(binDir, decodeURIComponent(admin.username), decodeURIComponent(admin.password), user);
  }
  const rec = startProcess('postgres', {
    bin: path.join(binDir, 'postgres'),
    args: [
      '-D',
      CLUSTER_DIR,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${host.replace(/^\[|\]$/g, '')}`,
      // TCP only: a socket path under a deep checkout can exceed the 107-byte limit
      '-c',
      'unix_socket_directories=',
    ],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    cwd: CLUSTER_DIR,
    match: CLUSTER_DIR,
    // fast shutdown: SIGTERM (smart) would wait for every client to disconnect
    stopSignal: 'SIGINT',
    ...user,
  });
  await waitForPort('postgres', port);
  return `started (pid ${rec.pid}, data in .stack/data/postgres)`;
}

/** Waits until the server accepts the admin's connections (it answers TCP before recovery ends). */
async function waitAccepting(psql, env, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = run(psql, ['-X', '-At', '-c', 'SELECT 1'], { env: { ...process.env, ...env } });
    if (r.status === 0) return;
    const msg = (r.stderr || r.stdout).trim();
    if (/password authentication failed|no password supplied|role .* does not exist/i.test(msg)) {
      throw new StackError(`PostgreSQL at ${env.PGHOST}:${env.PGPORT} refuses ${env.PGUSER}: ${msg}`);
    }
    if (Date.now() > deadline) throw new StackError(`PostgreSQL at ${env.PGHOST}:${env.PGPORT}: ${msg}`);
    await sleep(300);
  }
}

/** Creates (idempotently) each data-owning service's role and database. */
function provision(psql, env, secrets) {
  const passwords = Object.fromEntries(DATA_SERVICES.map((s) => [s.passwordVar, secrets[s.passwordVar]]));
  const r = run('sh', [PG_INIT_SCRIPT, ...DATA_SERVICES.map((s) => s.name)], {
    env: {
      ...process.env,
      ...env,
      ...passwords,
      PATH: `${path.dirname(psql)}${path.delimiter}${process.env.PATH}`,
    },
  });
  if (r.status !== 0) {
    throw new StackError(`creating the service roles and databases failed:\n${r.stdout}${r.stderr}`);
  }
  return `roles and databases ${DATA_SERVICES.map((s) => s.database).join(', ')} ready`;
}

/**
 * Ensures a PostgreSQL server and the services' roles and databases.
 * @returns {Promise<{adminUrl: string, host: string, port: number}>}
 */
export async function ensurePostgres(secrets) {
  const admin = new URL(process.env.POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL);
  if (!/^postgres(ql)?:$/.test(admin.protocol))
    throw new StackError('POSTGRES_ADMIN_URL must be a postgres:// URL');
  if (!admin.username) admin.username = 'postgres';
  const host = admin.hostname;
  const port = Number(admin.port || 5432);
  const ownCluster = () => {
    // a server of ours has the generated superuser password unless the URL names one
    if (!admin.password) admin.password = encodeURIComponent(secrets.POSTGRES_PASSWORD);
  };

  let status;
  const rec = readPidRecord('postgres');
  if (isOurs(rec)) {
    ownCluster();
    await waitForPort('postgres', port);
    status = `running (pid ${rec.pid})`;
  } else {
    if (rec) fs.rmSync(pidFile('postgres'), { force: true });
    if (await tcpOpen(port, host.replace(/^\[|\]$/g, ''))) {
      status = `using the server already answering on ${host}:${port} (not started by this script)`;
    } else if (LOOPBACK.has(host)) {
      ownCluster();
      status = await startCluster(admin, host, port);
    } else {
      throw new StackError(`no PostgreSQL answers at ${host}:${port} (POSTGRES_ADMIN_URL)`);
    }
  }
  log(`postgres  ${status}`);
  const psql = psqlBinary();
  const env = libpqEnv(admin.toString());
  await waitAccepting(psql, env);
  log(`postgres  ${provision(psql, env, secrets)}`);
  return { adminUrl: admin.toString(), host, port };
}
