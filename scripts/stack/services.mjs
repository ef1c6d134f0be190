// The six services (native mode): build, start in manifest order, wait until ready.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DATA_SERVICES, GATEWAY_PORT, LOGS, ROOT, SERVICES, serviceCommand } from './context.mjs';
import { serviceEnv } from './env.mjs';
import { children, isOurs, pidFile, readPidRecord, startProcess } from './processes.mjs';
import { HOST, StackError, httpStatus, log, sleep, tail, tcpOpen } from './util.mjs';

export function runBuild() {
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

/**
 * Each data-owning service's setup (migrations, MongoDB indexes, JetStream streams) in a process
 * of its own before the services start, as the Kubernetes Jobs run it
 * (deploy/k8s/base/migrations.yaml); startServices then starts them with DB_MIGRATE_ON_BOOT=false,
 * as the Deployments run. A service that migrates at boot keeps the migrator loaded for as long
 * as it runs (about 5 MB of heap; issue 14's idle RSS target is 80 MB per service). A caller who
 * sets DB_MIGRATE_ON_BOOT keeps that choice, and no setup runs here. Services already running
 * are left alone.
 */
export async function runSetups(ep, secrets, db) {
  if (process.env.DB_MIGRATE_ON_BOOT !== undefined) return;
  const pending = DATA_SERVICES.filter((svc) => !isOurs(readPidRecord(svc.name)));
  if (!pending.length) return;
  log(`setup (migrations, indexes, streams): ${pending.map((s) => s.name).join(', ')}`);
  const codes = await Promise.all(
    pending.map(
      (svc) =>
        new Promise((resolve) => {
          const logFile = path.join(LOGS, `${svc.name}.log`);
          fs.mkdirSync(LOGS, { recursive: true });
          const rel = path.join('services', svc.name, 'dist', 'setup.js');
          fs.appendFileSync(logFile, `\n=== ${new Date().toISOString()} stack.mjs runs setup: ${rel}\n`);
          const fd = fs.openSync(logFile, 'a');
          const child = spawn(process.execPath, [rel], {
            cwd: ROOT,
            env: serviceEnv(svc, ep, secrets, db),
            stdio: ['ignore', fd, fd],
          });
          fs.closeSync(fd);
          child.on('error', () => resolve([svc.name, -1]));
          child.on('exit', (code) => resolve([svc.name, code]));
        }),
    ),
  );
  const failed = codes.filter(([, code]) => code !== 0).map(([name]) => name);
  if (failed.length) {
    throw new StackError(
      `setup failed for ${failed.join(', ')}:\n` +
        failed.map((n) => `--- .stack/logs/${n}.log\n${tail(path.join(LOGS, `${n}.log`), 20)}`).join('\n'),
    );
  }
}

export async function startServices(ep, secrets, db) {
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
    const env = serviceEnv(svc, ep, secrets, db);
    // runSetups did the setup (unless the caller chose DB_MIGRATE_ON_BOOT)
    env.DB_MIGRATE_ON_BOOT ??= 'false';
    const started = startProcess(svc.name, {
      bin: process.execPath,
      args: serviceCommand(svc),
      env,
      match: rel,
    });
    log(`${svc.name.padEnd(9)} started (pid ${started.pid}, port ${svc.port})`);
  }
}

/** Waits until the gateway's /readyz (and every service's own /readyz) answers 200. */
export async function waitReady(ep, native) {
  const timeoutS = Number(process.env.BAAS_UP_TIMEOUT_SECONDS || 60);
  const url = `http://${HOST}:${GATEWAY_PORT}/readyz`;
  log(`waiting up to ${timeoutS}s for GET ${url} = 200`);
  const deadline = Date.now() + timeoutS * 1000;
  let last = 0;
  let notReady = [];
  while (Date.now() < deadline) {
    const dead = SERVICES.filter((s) => children.get(s.name)?.exited || !isOurs(readPidRecord(s.name)));
    if (native && dead.length) {
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

export async function printServiceDiagnostics(ep) {
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
