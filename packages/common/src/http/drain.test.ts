import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainOnStop } from './drain';

/**
 * A server stopped while a keep-alive client has a request in flight: the answer arrives whole,
 * tells the client to close, and the server finishes closing right after it instead of holding
 * the connection open until the process's hard exit.
 */
describe('drainOnStop', () => {
  let server: http.Server;
  let agent: http.Agent;
  let release: () => void;
  let port: number;
  /** Resolves when the slow or streaming handler has the request. */
  let inHandler: Promise<void>;

  beforeEach(async () => {
    let started!: () => void;
    inHandler = new Promise<void>((r) => (started = r));
    server = http.createServer((req, res) => {
      if (req.url === '/slow') {
        started();
        release = () => res.end('slow done');
      } else if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('part 1;');
        started();
        release = () => res.end('part 2');
      } else res.end('fast');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterEach(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });

  const get = (path: string) =>
    new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', path, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
          );
        })
        .on('error', reject);
    });

  it('answers the request in flight with Connection: close and finishes closing right after', async () => {
    const drain = drainOnStop(server);
    expect((await get('/fast')).connection).toBe('keep-alive'); // the socket is pooled
    const answer = get('/slow');
    await inHandler;
    let stopped = false;
    const stop = drain.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false); // still answering
    release();
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'slow done' });
    const t = Date.now();
    await stop;
    expect(Date.now() - t).toBeLessThan(1000); // not the keep-alive timeout, not a hard exit
  });

  it('closes a connection whose answer was already streaming once that answer ends', async () => {
    const drain = drainOnStop(server);
    const answer = get('/stream');
    await inHandler;
    const stop = drain.stop();
    release();
    expect(await answer).toMatchObject({ status: 200, body: 'part 1;part 2' });
    const t = Date.now();
    await stop;
    expect(Date.now() - t).toBeLessThan(1000);
  });

  it('closes idle kept-alive connections at once', async () => {
    const drain = drainOnStop(server);
    await get('/fast');
    const t = Date.now();
    await drain.stop();
    expect(Date.now() - t).toBeLessThan(1000);
  });

  it('without it, the busy keep-alive connection keeps the server from closing (why it exists)', async () => {
    expect((await get('/fast')).connection).toBe('keep-alive');
    const answer = get('/slow');
    await inHandler;
    let closed = false;
    server.close(() => (closed = true));
    server.closeIdleConnections();
    release();
    expect((await answer).connection).toBe('keep-alive');
    await new Promise((r) => setTimeout(r, 500));
    expect(closed).toBe(false);
  });
});
