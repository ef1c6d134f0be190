// A bare proxy hop, for comparison with the gateway's: node:http in front and undici's
// Pool.dispatch behind (as the gateway forwards), every request and answer header passed on but the
// hop-by-hop ones, and nothing else: no keys, limits, origins, assertion, metrics or logs.
// bench/gateway-overhead.mjs --bare runs it in front of the data service (in its own process, as
// the gateway is) to show what a proxy hop costs on this machine before any of the gateway's work.
import http from 'node:http';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { workspaceModule } from './workspace-module.mjs';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'te',
  'trailer',
  'upgrade',
]);

/** Starts the proxy in a child process: { url, pid, stop }. */
export function startBareProxy(upstreamOrigin) {
  return new Promise((resolve, reject) => {
    // without the bench's own flags (--cpu-prof, an inspector) in the proxy
    const child = fork(fileURLToPath(import.meta.url), ['--serve', upstreamOrigin], { execArgv: [] });
    child.once('message', (port) =>
      resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill() }),
    );
    child.once('exit', (code) => reject(new Error(`the bare proxy exited (${code})`)));
  });
}

async function serve(upstreamOrigin) {
  const { Pool } = workspaceModule('services/gateway', 'undici');
  const pool = new Pool(upstreamOrigin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const server = http.createServer((req, res) => {
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    pool.dispatch(
      { method: req.method, path: req.url, headers, body: null },
      {
        onConnect() {},
        onError() {
          if (!res.headersSent) res.statusCode = 502;
          res.end();
        },
        onHeaders(status, raw) {
          const out = {};
          for (let i = 0; i < raw.length; i += 2) {
            const name = raw[i].toString().toLowerCase();
            if (!HOP_BY_HOP.has(name)) out[name] = raw[i + 1].toString();
          }
          res.writeHead(status, out);
          return true;
        },
        onData(chunk) {
          res.write(chunk);
          return true;
        },
        onComplete() {
          res.end();
        },
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
  // the bench that started it is gone (ended, killed, crashed): so is the proxy
  process.once('disconnect', () => process.exit(0));
}

if (process.argv[2] === '--serve') await serve(process.argv[3]);
