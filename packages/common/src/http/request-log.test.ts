import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestIdMiddleware } from './request-id';
import { requestLogMiddleware } from './request-log';

function appLoggingAt(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  const app = express();
  app.use(requestIdMiddleware);
  app.use(requestLogMiddleware(pino({ level }, sink)));
  app.get('/ok', (_req, res) => void res.json({ ok: true }));
  app.get('/missing', (_req, res) => void res.status(404).json({}));
  app.get('/broken', (_req, res) => void res.status(500).json({}));
  return { app, lines };
}

async function get(app: express.Express, path: string, headers: Record<string, string> = {}) {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { headers });
    await res.text();
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

describe('request log', () => {
  it('logs 4xx at info and 5xx at error with id, method, path and status, never the query string', async () => {
    const { app, lines } = appLoggingAt('info');
    await get(app, '/ok?key=sk_live_secret');
    await get(app, '/missing?token=abc', { 'x-request-id': 'rid-1' });
    await get(app, '/broken');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { id: 'rid-1', method: 'GET', url: '/missing' },
      res: { statusCode: 404 },
    });
    expect(lines[1]).toMatchObject({ level: 50, res: { statusCode: 500 } });
    expect(JSON.stringify(lines)).not.toMatch(/token|sk_live/);
  });

  it('logs successful requests at debug', async () => {
    const { app, lines } = appLoggingAt('debug');
    await get(app, '/ok');
    expect(lines).toEqual([expect.objectContaining({ level: 20, res: { statusCode: 200 } })]);
  });
});
