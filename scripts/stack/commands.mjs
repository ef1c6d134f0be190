// up / down / status / restart.
import fs from 'node:fs';
import { DATA, ENV_FILE, GATEWAY_PORT, LOGS, MODE_FILE, PIDS, SERVICES } from './context.mjs';
import { composeStatus, dockerAvailable, downDocker, upDocker } from './docker.mjs';
import { writeStackEnv } from './env.mjs';
import { INFRA_NAMES, nativeEndpoints, runInstallInfra, upNativeInfra } from './infra.mjs';
import { DEFAULT_ADMIN_URL, ensurePostgres } from './postgres.mjs';
import { acquireLock, isOurs, readPidRecord, recordedNames, stopAll } from './processes.mjs';
import { loadSecrets } from './secrets.mjs';
import { printServiceDiagnostics, runBuild, runSetups, startServices, waitReady } from './services.mjs';
import { chooseStore, recordedStore, storeDatabases } from './store.mjs';
import { HOST, StackError, fail, httpStatus, log, mkdirs, parseEnvFile, readText, tcpOpen } from './util.mjs';

const SERVICE_NAMES_REVERSED = [...SERVICES].reverse().map((s) => s.name);

function chooseMode() {
  const forced = process.env.BAAS_STACK_MODE;
  if (forced) {
    if (!['native', 'docker'].includes(forced))
      fail(`BAAS_STACK_MODE must be native or docker (got ${forced})`);
    return forced;
  }
  return dockerAvailable() ? 'docker' : 'native';
}

/** The database server of the store, and each data-owning service's DATABASE_URL on it. */
async function nativeDatabases(store, ep, secrets) {
  if (store === 'mongodb') return storeDatabases(store, { host: HOST, port: ep.mongoPort }, secrets);
  const pg = await ensurePostgres(secrets);
  return storeDatabases(store, pg, secrets, pg.adminUrl);
}

export async function cmdUp(infraOnly) {
  acquireLock();
  const mode = chooseMode();
  const stackIsUp = fs.existsSync(MODE_FILE);
  const store = chooseStore(stackIsUp);
  if (mode === 'docker') return upDocker(store, infraOnly);

  log(
    `native mode${process.env.BAAS_STACK_MODE ? '' : ' (no Docker engine answers)'}, store: ${store}` +
      (infraOnly ? ', infrastructure only' : ''),
  );
  runInstallInfra(store);
  const secrets = loadSecrets();
  const previous = stackIsUp ? recordedStore() : null;
  if (previous && previous !== store) {
    // services hold the other store's DATABASE_URL: they start again on this one
    log(`the stack ran on ${previous}: restarting the services on ${store}`);
    await stopAll(SERVICE_NAMES_REVERSED);
  }
  fs.writeFileSync(MODE_FILE, 'native\n');
  mkdirs(DATA, LOGS, PIDS);
  const ep = nativeEndpoints();
  let db;
  try {
    // PostgreSQL first (server, roles, databases); MongoDB's URLs need no I/O and FerretDB
    // starts with the rest of the infrastructure
    db = await nativeDatabases(store, ep, secrets);
    await upNativeInfra(secrets, store, ep);
  } catch (err) {
    if (err instanceof StackError) fail(err.message);
    throw err;
  }
  writeStackEnv(ep, secrets, 'native', db);
  if (infraOnly) {
    log('infrastructure is up; variables in .stack/env');
    return;
  }
  let built = false;
  try {
    runBuild();
    built = true;
    await runSetups(ep, secrets, db);
    await startServices(ep, secrets, db);
    await waitReady(ep, true);
  } catch (err) {
    if (!(err instanceof StackError)) throw err;
    process.stderr.write(`[stack] ERROR: ${err.message}\n`);
    if (built) await printServiceDiagnostics(ep);
    process.stderr.write('\n[stack] the processes stay up for inspection; stop them with: npm run down\n');
    process.exit(1);
  }
  log(`up (${store}). BASE_URL=http://${HOST}:${GATEWAY_PORT}; variables in .stack/env`);
}

export async function cmdDown() {
  acquireLock();
  const mode = readText(MODE_FILE)?.trim();
  // services first (they hold connections to the infrastructure), then the infrastructure
  let any = await stopAll(SERVICE_NAMES_REVERSED);
  const known = new Set([...SERVICE_NAMES_REVERSED, ...INFRA_NAMES]);
  const others = recordedNames().filter((n) => !known.has(n));
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

export async function cmdRestart() {
  acquireLock();
  await stopAll(SERVICE_NAMES_REVERSED);
  await cmdUp(false);
}

export async function cmdStatus() {
  const mode = readText(MODE_FILE)?.trim() ?? 'down';
  const store = recordedStore();
  log(`mode: ${mode}${store ? `, store: ${store}` : ''}`);
  const ep = mode === 'docker' ? composeStatus() : nativeEndpoints();
  const pgUrl = new URL(parseEnvFile(readText(ENV_FILE)).POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL);
  const infraPorts = {
    ferretdb: [ep.mongoPort],
    postgres: [ep.postgresPort ?? Number(pgUrl.port || 5432)],
    nats: [ep.natsPort],
    redis: [ep.redisPort],
    s3: [ep.s3Port],
    mailpit: [ep.smtpPort, ep.mailpitPort],
  };
  const usedByStore = { ferretdb: store === 'mongodb', postgres: store === 'postgres' };
  const rows = [];
  let allUp = true;
  for (const name of INFRA_NAMES) {
    const rec = readPidRecord(name);
    const ours = isOurs(rec);
    const used = usedByStore[name] ?? true;
    if (!ours && !used) continue;
    const host = name === 'postgres' && mode !== 'docker' ? pgUrl.hostname : HOST;
    const answers = await Promise.all(infraPorts[name].map((p) => tcpOpen(p, host)));
    const ok = answers.every(Boolean);
    if (used) allUp &&= ok;
    rows.push([
      mode === 'docker' && name === 'ferretdb' ? 'mongo' : name,
      ours ? `pid ${rec.pid}` : mode === 'docker' ? 'container' : ok ? 'not ours' : '-',
      infraPorts[name].map((p, i) => `${p}:${answers[i] ? 'open' : 'closed'}`).join(' ') +
        (used ? '' : ' (not used by this store)'),
    ]);
  }
  for (const svc of SERVICES) {
    const rec = readPidRecord(svc.name);
    const port = ep.servicePorts[svc.name];
    const ready = await httpStatus(`http://${HOST}:${port}/readyz`);
    rows.push([
      svc.name,
      isOurs(rec) ? `pid ${rec.pid}` : mode === 'docker' ? 'container' : '-',
      `${port}:readyz=${ready || 'no answer'}`,
    ]);
  }
  for (const [a, b, c] of rows) log(`${a.padEnd(9)} ${b.padEnd(11)} ${c}`);
  const gw = await httpStatus(`http://${HOST}:${GATEWAY_PORT}/readyz`);
  log(`infrastructure: ${allUp ? 'up' : 'not (fully) up'}; gateway ready: ${gw === 200 ? 'yes' : 'no'}`);
}

export function usage(code) {
  process.stdout.write(
    'usage: node scripts/stack.mjs up [--infra-only] | down | status | restart\n' +
      '  up            start infrastructure and the six services, wait for the gateway /readyz\n' +
      '  up --infra-only   infrastructure only (the store, NATS, Redis, S3, Mailpit)\n' +
      '  down          stop what up started (data stays in .stack/data)\n' +
      '  status        show processes, ports and readiness\n' +
      '  restart       stop the services (not the infrastructure), then up\n' +
      'store: BAAS_STORE=postgres (default) or mongodb; see docs/runtime-layout.md\n',
  );
  process.exit(code);
}
