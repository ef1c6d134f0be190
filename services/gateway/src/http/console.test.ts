import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CONSOLE_CSP, ConsoleSite, PREVIEW_CSP } from './console';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function serve(site: ConsoleSite): Promise<Server> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    site.answer({ req, res, id: 'req-1', path: q < 0 ? url : url.slice(0, q), ip: '127.0.0.1' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function get(
  server: Server,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console site (/console)', () => {
  let dir: string;
  let server: Server;
  const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-site-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), script);
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(dir, 'preview.html'), '<!doctype html><title>preview</title>');
    writeFileSync(join(dir, 'preview.js'), 'addEventListener("message", () => {});');
    server = await serve(new ConsoleSite({ dir }));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers index.html for the app and its client-side routes, revalidated, under a strict CSP', async () => {
    for (const path of ['/console/', '/console/projects/abc/collections/posts', '/console/index.html']) {
      const r = await get(server, path);
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.body.toString()).toContain('<title>console</title>');
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(r.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(r.headers['x-frame-options']).toBe('DENY');
    }
    for (const directive of [
      "default-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "object-src 'none'",
    ])
      expect(CONSOLE_CSP).toContain(directive);
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
  });

  it('frames the mail preview page only: its own CSP, sandboxed, framed by the console alone', async () => {
    expect(CONSOLE_CSP).toContain("frame-src 'self'");
    const page = await get(server, '/console/preview.html');
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('<title>preview</title>');
    expect(page.headers['content-security-policy']).toBe(PREVIEW_CSP);
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = new Map(
      PREVIEW_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')] as const),
    );
    expect(Object.fromEntries(csp)).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'unsafe-inline'",
      'img-src': 'https: data:',
      'frame-src': "'none'",
      'form-action': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'self'",
      sandbox: 'allow-scripts',
    });
    // Its script is fetched by a document of an opaque origin: a same-origin CORP would refuse it.
    const script = await get(server, '/console/preview.js');
    expect([script.status, script.headers['cross-origin-resource-policy']]).toEqual([200, 'cross-origin']);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    // Everything else keeps the console's headers: never framed, same-origin only.
    const app = await get(server, '/console/projects/x/mail');
    expect(app.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(app.headers['x-frame-options']).toBe('DENY');
    expect(app.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('serves hashed assets for a year, gzipped when asked, and 304 on a matching ETag', async () => {
    const plain = await get(server, '/console/assets/index-abc123.js');
    expect(plain.status).toBe(200);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.body.toString()).toBe(script);
    const zipped = await get(server, '/console/assets/index-abc123.js', { 'accept-encoding': 'br, gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.body).toString()).toBe(script);
    const refused = await get(server, '/console/assets/index-abc123.js', { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const again = await get(server, '/console/assets/index-abc123.js', {
      'if-none-match': String(plain.headers.etag),
    });
    expect(again.status).toBe(304);
    const icon = await get(server, '/console/favicon.svg');
    expect([icon.status, icon.headers['content-type'], icon.headers['cache-control']]).toEqual([
      200,
      'image/svg+xml',
      'no-cache',
    ]);
  });

  it('answers 404 for a missing asset (never the HTML), and nothing outside the directory', async () => {
    for (const path of ['/console/assets/old-build.js', '/console/assets/../../../etc/passwd']) {
      const r = await get(server, path);
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.headers['content-type']).toContain('application/json');
    }
    const traversal = await get(server, '/console/..%2F..%2Fpackage.json');
    expect(traversal.body.toString()).toContain('<title>console</title>');
  });

  it('redirects /console to /console/, keeps HEAD bodiless and refuses other methods', async () => {
    const r = await get(server, '/console?x=1');
    expect([r.status, r.headers.location]).toEqual([308, '/console/?x=1']);
    const head = await get(server, '/console/', {}, 'HEAD');
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const post = await get(server, '/console/', {}, 'POST');
    expect(post.status).toBe(404);
  });

  it('says plainly when there is no build, and serves one built later, or rebuilt', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-empty-'));
    let now = 0;
    const site = new ConsoleSite({ dir: empty, retryMs: 1000, now: () => now });
    const s = await serve(site);
    try {
      const missing = await get(s, '/console/');
      expect(missing.status).toBe(404);
      const body = JSON.parse(missing.body.toString()) as { code: string; message: string };
      expect(body.code).toBe('CONSOLE_NOT_BUILT');
      expect(body.message).toContain('npm run build');
      writeFileSync(join(empty, 'index.html'), '<!doctype html><title>later</title>');
      expect((await get(s, '/console/')).status).toBe(404); // looked again only after retryMs
      now = 1500;
      expect((await get(s, '/console/')).body.toString()).toContain('later');
      // A new build replaces the one in memory (index.html rewritten), once retryMs has passed.
      writeFileSync(join(empty, 'index.html'), '<!doctype html><title>rebuilt</title>');
      utimesSync(join(empty, 'index.html'), new Date(), new Date(Date.now() + 5000));
      expect((await get(s, '/console/')).body.toString()).toContain('later');
      now = 3000;
      expect((await get(s, '/console/')).body.toString()).toContain('rebuilt');
      // A build in progress (index.html gone) keeps serving the last one.
      rmSync(join(empty, 'index.html'));
      now = 4500;
      expect((await get(s, '/console/')).body.toString()).toContain('rebuilt');
    } finally {
      await new Promise((r) => s.close(r));
      rmSync(empty, { recursive: true, force: true });
    }
    const none = await serve(new ConsoleSite({ dir: undefined }));
    try {
      const r = await get(none, '/console/');
      expect([r.status, JSON.parse(r.body.toString()).code]).toEqual([404, 'CONSOLE_NOT_BUILT']);
    } finally {
      await new Promise((r) => none.close(r));
    }
  });
});
