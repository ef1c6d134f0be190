#!/usr/bin/env node
// Brings the whole system up / down on one machine (see docs/runtime-layout.md and the platform
// contract, "Running the whole system on one machine"). Node built-ins only; the modules are in
// scripts/stack/, the deployment's facts (services, ports, databases) in deploy/services.json.
//
//   node scripts/stack.mjs up [--infra-only]   start (idempotent), then wait for the gateway's /readyz
//   node scripts/stack.mjs down                 stop everything this script started; data stays
//   node scripts/stack.mjs status               what runs, what answers
//   node scripts/stack.mjs restart              stop the six services only, then `up`
//
// Store: BAAS_STORE=postgres (default) or mongodb. PostgreSQL: the server at POSTGRES_ADMIN_URL
// (default postgres://postgres@127.0.0.1:5432/postgres), or one this script starts in
// .stack/data/postgres when none answers; each data-owning service gets a role and a database of
// its own. MongoDB: FerretDB (native) or mongo:7 (Docker).
//
// Mode: Docker Compose when `docker info` succeeds, native processes otherwise. Override with
// BAAS_STACK_MODE=native|docker. Other knobs: BAAS_TOOLS_DIR (where scripts/install-infra.sh puts
// ferretdb/mailpit/versitygw), BAAS_UP_TIMEOUT_SECONDS (readiness wait, default 60),
// BAAS_SKIP_INSTALL=1, BAAS_SKIP_BUILD=1, BAAS_S3_META=xattr|sidecar|nometa.
//
// Everything lives in .stack/: env (KEY=value for clients and tests), secrets.env (generated
// tokens and database passwords, kept across down/up), data/ (databases, objects, mail),
// logs/<name>.log, pids/<name>.pid.
import { cmdDown, cmdRestart, cmdStatus, cmdUp, usage } from './stack/commands.mjs';
import { StackError, fail } from './stack/util.mjs';

// `node scripts/stack.mjs status | head` must not crash on a closed pipe
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

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
