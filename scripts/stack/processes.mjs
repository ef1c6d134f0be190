// Processes this script starts (native mode): one pid file each in .stack/pids, so that `down`
// stops exactly what `up` started and never anything else.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { LOCK_FILE, LOGS, PIDS, ROOT, STACK } from './context.mjs';
import { HOST, StackError, fail, log, mkdirs, readText, sleep, tail, tcpOpen } from './util.mjs';

export function pidFile(name) {
  return path.join(PIDS, `${name}.pid`);
}

export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

export function cmdlineOf(pid) {
  const proc = readText(`/proc/${pid}/cmdline`);
  if (proc !== null) return proc.split('\0').join(' ').trim();
  const r = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

export function readPidRecord(name) {
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
export function isOurs(rec) {
  if (!rec || !pidAlive(rec.pid)) return false;
  const cmd = cmdlineOf(rec.pid);
  if (!cmd) return false; // gone or zombie
  return rec.match ? cmd.includes(rec.match) : true;
}

/** Names with a pid file, whatever started them (an older version of this script too). */
export function recordedNames() {
  if (!fs.existsSync(PIDS)) return [];
  return fs
    .readdirSync(PIDS)
    .filter((f) => f.endsWith('.pid'))
    .map((f) => f.slice(0, -4));
}

/** @type {Map<string, {exited: null | {code: number | null, signal: string | null, error?: string}}>} */
export const children = new Map();

/**
 * Starts a detached process (its own process group) with its output in .stack/logs/<name>.log.
 * `stopSignal` (default SIGTERM) is what `down` sends first.
 */
export function startProcess(name, { bin, args, env, match, cwd = ROOT, uid, gid, stopSignal }) {
  mkdirs(LOGS, PIDS);
  const logFile = path.join(LOGS, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n=== ${new Date().toISOString()} stack.mjs starts: ${bin} ${args.join(' ')}\n`);
  const child = spawn(bin, args, { cwd, env, uid, gid, detached: true, stdio: ['ignore', fd, fd] });
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
  const rec = {
    pid: child.pid,
    match,
    stopSignal,
    startedAt: new Date().toISOString(),
    cmd: [bin, ...args].join(' '),
  };
  fs.writeFileSync(pidFile(name), JSON.stringify(rec));
  return rec;
}

export function exitedMessage(name) {
  const st = children.get(name)?.exited;
  if (!st) return null;
  const how = st.error ?? (st.signal ? `signal ${st.signal}` : `exit code ${st.code}`);
  return `${name} exited (${how}); last lines of .stack/logs/${name}.log:\n${tail(path.join(LOGS, `${name}.log`), 30)}`;
}

export async function waitForPort(name, port, timeoutMs = 30_000) {
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

export async function stopProcess(name, graceMs = 10_000) {
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
  signal(rec.stopSignal ?? 'SIGTERM');
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

/** Stops the named processes (those with a pid file of ours), in parallel; true when any was. */
export async function stopAll(names) {
  const results = await Promise.all(names.map(async (n) => [n, await stopProcess(n)]));
  for (const [n, r] of results) if (r) log(`${n.padEnd(9)} ${r}`);
  return results.some(([, r]) => r);
}

// ---------------------------------------------------------------------------------------------
// lock: one up/down at a time

let locked = false;

/** Takes .stack/stack.lock for this process (a second call is a no-op). */
export function acquireLock() {
  if (locked) return;
  mkdirs(STACK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(LOCK_FILE, String(process.pid), { flag: 'wx' });
      locked = true;
      process.on('exit', releaseLock);
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

export function releaseLock() {
  if (readText(LOCK_FILE)?.trim() === String(process.pid)) fs.rmSync(LOCK_FILE, { force: true });
}
