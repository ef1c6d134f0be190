// Small helpers of the stack script: logging, files, ports. Node built-ins only.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

export const HOST = '127.0.0.1';

/** A failure with a message for the operator (no stack trace). */
export class StackError extends Error {}

export function log(msg) {
  process.stdout.write(`[stack] ${msg}\n`);
}

export function fail(msg, code = 1) {
  process.stderr.write(`[stack] ERROR: ${msg}\n`);
  process.exit(code);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function mkdirs(...dirs) {
  for (const d of dirs) fs.mkdirSync(d, { recursive: true });
}

export function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export function parseEnvFile(text) {
  const out = {};
  for (const line of (text ?? '').split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line);
    if (m && !line.trimStart().startsWith('#')) out[m[1]] = m[2].trim();
  }
  return out;
}

/** KEY=value lines, written atomically, readable by the owner only (they hold secrets). */
export function writeEnvFile(file, obj, header) {
  const lines = header ? [`# ${header}`] : [];
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null) lines.push(`${k}=${v}`);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${lines.join('\n')}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function tail(file, lines = 40) {
  const text = readText(file);
  if (text === null) return '(no log file)';
  const all = text.split('\n');
  return all.slice(Math.max(0, all.length - lines - 1)).join('\n');
}

/** true when something accepts a TCP connection on host:port */
export function tcpOpen(port, host = HOST, timeoutMs = 700) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** HTTP GET status code, or 0 when nothing answers */
export function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
  });
}

/** a port nobody listens on right now (for Docker host ports that collide) */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function findBinary(name, extraDirs = []) {
  const dirs = [
    ...extraDirs,
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ];
  for (const d of dirs) {
    const p = path.join(d, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      /* next */
    }
  }
  return null;
}
