// Where things live, and the deployment's facts (deploy/services.json), for every stack module.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail } from './util.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const STACK = path.join(ROOT, '.stack');
export const DATA = path.join(STACK, 'data');
export const LOGS = path.join(STACK, 'logs');
export const PIDS = path.join(STACK, 'pids');
export const ENV_FILE = path.join(STACK, 'env');
export const SECRETS_FILE = path.join(STACK, 'secrets.env');
export const MODE_FILE = path.join(STACK, 'mode');
export const COMPOSE_PORTS_FILE = path.join(STACK, 'compose-ports.env');
export const LOCK_FILE = path.join(STACK, 'stack.lock');
export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
/** The one documented switch of docker-compose.yml to MongoDB. */
export const COMPOSE_MONGODB_FILE = path.join(ROOT, 'docker-compose.mongodb.yml');
export const PG_INIT_SCRIPT = path.join(ROOT, 'deploy', 'postgres', 'init-service-databases.sh');
export const TOOLS_BIN = path.join(
  process.env.BAAS_TOOLS_DIR || path.join(os.homedir(), '.cache', 'baas-tools'),
  'bin',
);

export const S3_BUCKET = process.env.S3_BUCKET || 'baas-files';
export const S3_REGION = process.env.S3_REGION || 'us-east-1';

export const GATEWAY_PORT = Number(process.env.GATEWAY_PORT || 8080);
if (!Number.isInteger(GATEWAY_PORT) || GATEWAY_PORT < 1 || GATEWAY_PORT > 65535) {
  fail(`GATEWAY_PORT=${process.env.GATEWAY_PORT} is not a valid port`);
}

/**
 * @typedef {{name: string, port: number, urlVar: string, ownsDatabase: boolean, database?: string,
 *   role?: string, databaseUrlVar?: string, passwordVar?: string, nodeArgs?: string[]}} ServiceFacts
 */
function loadManifest() {
  const file = path.join(ROOT, 'deploy', 'services.json');
  /** @type {ServiceFacts[]} */
  const services = JSON.parse(fs.readFileSync(file, 'utf8')).services;
  for (const s of services) {
    const keys = s.ownsDatabase ? ['database', 'role', 'databaseUrlVar', 'passwordVar'] : [];
    const missing = ['name', 'port', 'urlVar', ...keys].filter((k) => s[k] === undefined);
    if (missing.length) fail(`deploy/services.json: ${s.name ?? '?'} lacks ${missing.join(', ')}`);
    const args = s.nodeArgs ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string' && a.startsWith('--'))) {
      fail(`deploy/services.json: ${s.name}.nodeArgs must be a list of node options ("--name=value")`);
    }
  }
  return services;
}

/** A service's command line after `node`: its node options, then its main file (as compose and kustomize run it). */
export function serviceCommand(svc) {
  return [...(svc.nodeArgs ?? []), `services/${svc.name}/dist/main.js`];
}

/** Start order; the gateway last (its port follows GATEWAY_PORT). */
export const SERVICES = loadManifest().map((s) => (s.name === 'gateway' ? { ...s, port: GATEWAY_PORT } : s));
/** The services that own a database: one role and one database each. */
export const DATA_SERVICES = SERVICES.filter((s) => s.ownsDatabase);
