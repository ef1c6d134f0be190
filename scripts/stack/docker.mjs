// Docker Compose mode: docker-compose.yml (PostgreSQL), plus docker-compose.mongodb.yml when the
// store is MongoDB. This script chooses host ports, hands over the generated secrets and writes
// .stack/env as in native mode.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import {
  COMPOSE_FILE,
  COMPOSE_MONGODB_FILE,
  COMPOSE_PORTS_FILE,
  DATA,
  DATA_SERVICES,
  GATEWAY_PORT,
  LOGS,
  MODE_FILE,
  ROOT,
  S3_BUCKET,
  S3_REGION,
  SECRETS_FILE,
} from './context.mjs';
import { writeStackEnv } from './env.mjs';
import { ensureBucketOrFail } from './infra.mjs';
import { loadSecrets } from './secrets.mjs';
import { waitReady } from './services.mjs';
import { recordedStore, storeDatabases } from './store.mjs';
import { HOST, fail, freePort, log, mkdirs, parseEnvFile, readText, tcpOpen, writeEnvFile } from './util.mjs';

export function dockerAvailable() {
  const r = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
  return r.status === 0;
}

/** host port variables of docker-compose.yml, with their defaults */
const COMPOSE_PORT_VARS = {
  POSTGRES_HOST_PORT: 5432,
  MONGO_HOST_PORT: 27017,
  MONGO_DATA_HOST_PORT: 27018,
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

export function composeEndpoints(ports) {
  return {
    mongoPort: Number(ports.MONGO_HOST_PORT),
    mongoDataPort: Number(ports.MONGO_DATA_HOST_PORT),
    postgresPort: Number(ports.POSTGRES_HOST_PORT),
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

function composeFiles(store) {
  return ['-f', COMPOSE_FILE, ...(store === 'mongodb' ? ['-f', COMPOSE_MONGODB_FILE] : [])];
}

export function compose(store, args, env, opts = {}) {
  return spawnSync('docker', ['compose', ...composeFiles(store), ...args], {
    stdio: opts.capture ? 'pipe' : 'inherit',
    encoding: 'utf8',
    cwd: ROOT,
    env,
  });
}

/**
 * docker-compose.mongodb.yml runs with authentication: each service's URL names its own user
 * (data on its own server, `mongo-data`), as the containers' DATABASE_URLs do; tests and
 * clients on the host get the shared server's root user (`MONGO_URL`, authSource admin).
 */
export function mongoHostDatabases(ep, secrets) {
  const urls = {};
  for (const s of DATA_SERVICES) {
    const port = s.name === 'data' ? ep.mongoDataPort : ep.mongoPort;
    const pw = encodeURIComponent(secrets[s.passwordVar] ?? '');
    urls[s.name] = `mongodb://${s.role}:${pw}@${HOST}:${port}/${s.database}?authSource=${s.database}`;
  }
  const root = encodeURIComponent(secrets.MONGO_ROOT_PASSWORD ?? '');
  return {
    store: 'mongodb',
    urls,
    mongoUrl: `mongodb://root:${root}@${HOST}:${ep.mongoPort}/?authSource=admin`,
  };
}

/** What clients on this machine use: the published ports, each service's database as its role. */
function hostDatabases(store, ep, secrets) {
  if (store === 'mongodb') return mongoHostDatabases(ep, secrets);
  const adminUrl = `postgres://postgres:${encodeURIComponent(secrets.POSTGRES_PASSWORD)}@${HOST}:${ep.postgresPort}/postgres`;
  return storeDatabases(store, { host: HOST, port: ep.postgresPort }, secrets, adminUrl);
}

/** @param {'postgres' | 'mongodb'} store */
export async function upDocker(store, infraOnly) {
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
  const database = store === 'mongodb' ? ['mongo'] : ['postgres'];
  const args = ['up', '-d', '--wait'];
  if (infraOnly) args.push(...database, 'nats', 'redis', 's3', 'mailpit');
  else args.push('--build');
  log(`docker compose (store: ${store}) ${args.join(' ')}`);
  let r = compose(store, args, env);
  // infrastructure only: the one-shot that creates the roles and databases is not a dependency
  if (r.status === 0 && infraOnly && store === 'postgres')
    r = compose(store, ['run', '--rm', 'postgres-init'], env);
  const ep = composeEndpoints(ports);
  writeStackEnv(ep, secrets, 'docker', hostDatabases(store, ep, secrets));
  if (r.status !== 0) {
    compose(store, ['ps', '-a'], env);
    compose(store, ['logs', '--tail', '40'], env);
    fail('docker compose up failed (see above)');
  }
  await ensureBucketOrFail(secrets, ep.s3Port);
  if (!infraOnly) await waitReady(ep, false);
  log(`up (docker, ${store}). BASE_URL=http://${HOST}:${GATEWAY_PORT}; variables in .stack/env`);
}

export function downDocker() {
  const secrets = parseEnvFile(readText(SECRETS_FILE));
  const ports = parseEnvFile(readText(COMPOSE_PORTS_FILE));
  const env = { ...process.env, ...secrets, ...ports };
  // no -v: named volumes (the data) survive
  const r = compose(recordedStore() ?? 'postgres', ['down', '--remove-orphans'], env);
  if (r.status !== 0) fail('docker compose down failed');
  fs.rmSync(MODE_FILE, { force: true });
}

export function composeStatus() {
  const ports = parseEnvFile(readText(COMPOSE_PORTS_FILE));
  compose(recordedStore() ?? 'postgres', ['ps', '-a'], {
    ...process.env,
    ...parseEnvFile(readText(SECRETS_FILE)),
    ...ports,
  });
  return composeEndpoints(ports);
}
