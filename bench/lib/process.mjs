// Child processes the bench starts (the peers), free ports, and waiting for an HTTP answer.
// Everything started here is stopped by stopAll(), also on Ctrl-C.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const started = [];

export const HOST = '127.0.0.1';

/** A progress line with the time of day (UTC), to set beside other logs (PostgreSQL's checkpoints). */
export function log(msg) {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a process whose output goes to logFile; it is stopped by stopAll(). */
export function startProcess(name, bin, args, { env, cwd, logFile }) {
  const out = fs.openSync(logFile, 'w');
  const child = spawn(bin, args, { env, cwd, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const entry = { name, child, logFile, exited: null };
  child.on('exit', (code, signal) => (entry.exited = signal ?? `code ${code}`));
  started.push(entry);
  return entry;
}

/** Waits until GET url answers with a status below 500, or the process dies, or time runs out. */
export async function waitHttp(entry, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (entry.exited) throw new Error(`${entry.name} exited (${entry.exited}); see ${entry.logFile}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${entry.name} did not answer ${url} within ${timeoutMs} ms; see ${entry.logFile}`);
}

async function stop(entry) {
  if (entry.exited) return;
  const gone = new Promise((r) => entry.child.once('exit', r));
  entry.child.kill('SIGTERM');
  const timer = setTimeout(() => entry.child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** Stops what this process started (by the child's own pid, never by name), newest first. */
export async function stopAll() {
  while (started.length) await stop(started.pop());
}

export async function stopOne(entry) {
  const i = started.indexOf(entry);
  if (i >= 0) started.splice(i, 1);
  await stop(entry);
}
