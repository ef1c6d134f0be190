// Which store the services use (BAAS_STORE), and each data-owning service's DATABASE_URL.
import { DATA_SERVICES, ENV_FILE } from './context.mjs';
import { fail, parseEnvFile, readText } from './util.mjs';

export const STORES = ['postgres', 'mongodb'];

/** The store the running stack was brought up with (STORE in .stack/env), or null. */
export function recordedStore() {
  const s = parseEnvFile(readText(ENV_FILE)).STORE;
  return STORES.includes(s) ? s : null;
}

/**
 * BAAS_STORE when set; otherwise the store of a stack that is up (so a plain `up` or `restart`
 * of a running stack keeps it); otherwise PostgreSQL, the default.
 */
export function chooseStore(stackIsUp) {
  const asked = process.env.BAAS_STORE;
  if (asked) {
    if (!STORES.includes(asked)) fail(`BAAS_STORE must be postgres or mongodb (got ${asked})`);
    return asked;
  }
  return (stackIsUp && recordedStore()) || 'postgres';
}

/**
 * DATABASE_URL of each data-owning service, by name: its own database, reached as its own role
 * (PostgreSQL), or its own database on the MongoDB server.
 * @param {'postgres' | 'mongodb'} store
 * @param {{host: string, port: number}} server
 * @param {Record<string, string>} secrets
 */
export function databaseUrls(store, server, secrets) {
  const out = {};
  for (const s of DATA_SERVICES) {
    out[s.name] =
      store === 'postgres'
        ? `postgres://${s.role}:${encodeURIComponent(secrets[s.passwordVar])}@${server.host}:${server.port}/${s.database}`
        : `mongodb://${server.host}:${server.port}/${s.database}`;
  }
  return out;
}

/**
 * What the stack hands out about the store: each service's DATABASE_URL, and the server's own URL
 * for clients and tests (`MONGO_URL`, or `POSTGRES_ADMIN_URL` as given).
 * @param {'postgres' | 'mongodb'} store
 * @param {{host: string, port: number}} server
 * @param {Record<string, string>} secrets
 * @param {string} [adminUrl]  PostgreSQL: a role that may create roles and databases
 */
export function storeDatabases(store, server, secrets, adminUrl) {
  const urls = databaseUrls(store, server, secrets);
  return store === 'mongodb'
    ? { store, urls, mongoUrl: `mongodb://${server.host}:${server.port}` }
    : { store, urls, adminUrl };
}
