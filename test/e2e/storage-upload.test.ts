import http from 'node:http';
import { BASE_URL, client, createProject, loopbackFor, randomIp } from '../support/e2e';
import { bytesOf, fetchPublic, pngBytes, uploadBytes } from './storage-helpers';

const MAX = 10 * 1024 * 1024;

describe('storage: upload and public URLs', () => {
  it.each(['publishableKey', 'secretKey'] as const)(
    'uploads with the %s and serves the file at its public URL',
    async (which) => {
      const p = await createProject();
      const call = client();
      const bytes = pngBytes(2048);
      const r = await uploadBytes(call, p[which], bytes, 'photo.png', 'image/png');
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        message: expect.any(String),
        url: expect.any(String),
        path: expect.any(String),
        provider: expect.stringMatching(/^(s3|local)$/),
      });
      expect(r.body.path).toMatch(new RegExp(`^${p.id}/[A-Za-z0-9_-]+\\.png$`));
      expect(r.body.url.endsWith(`/${r.body.path}`)).toBe(true);

      const got = await fetchPublic(r.body.url);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toMatch(/^inline/);
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    },
  );

  it('gives two uploads of photo.png different paths', async () => {
    const p = await createProject();
    const call = client();
    const a = await uploadBytes(call, p.secretKey, bytesOf(10));
    const b = await uploadBytes(call, p.secretKey, bytesOf(10));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.path).not.toBe(b.body.path);
  });

  it("keeps a traversal file name inside the project's prefix", async () => {
    const p = await createProject();
    const other = await createProject();
    const r = await uploadBytes(client(), p.secretKey, bytesOf(10), `../../${other.id}/x.png`);
    expect(r.status).toBe(201);
    expect(r.body.path.startsWith(`${p.id}/`)).toBe(true);
    expect(r.body.path.split('/')).toHaveLength(2);
  });

  it('answers 400 when the file field is missing', async () => {
    const p = await createProject();
    const call = client();
    const f = new FormData();
    f.append('notfile', new Blob([bytesOf(10)]), 'a.png');
    const r = await call('POST', '/api/storage/upload', { key: p.secretKey, rawBody: f });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'FILE_REQUIRED', requestId: expect.any(String) });
    const json = await call('POST', '/api/storage/upload', { key: p.secretKey, body: { file: 'x' } });
    expect(json.status).toBe(400);
  });

  it('answers 401 without a key or with a wrong one', async () => {
    const call = client();
    const f = () => {
      const d = new FormData();
      d.append('file', new Blob([bytesOf(10)]), 'a.png');
      return d;
    };
    expect((await call('POST', '/api/storage/upload', { rawBody: f() })).status).toBe(401);
    expect(
      (await call('POST', '/api/storage/upload', { key: 'sk_live_0000000000000000000000', rawBody: f() }))
        .status,
    ).toBe(401);
  });

  it('accepts exactly 10 MB, refuses one byte more with 413 and keeps nothing of it', async () => {
    // A quota of exactly MAX: if the refused upload left any reservation behind, the next
    // upload of exactly MAX would be refused with 403.
    const p = await createProject({ limits: { storageBytes: MAX } });
    const call = client();
    const tooBig = await uploadBytes(
      call,
      p.secretKey,
      bytesOf(MAX + 1),
      'big.bin',
      'application/octet-stream',
    );
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    const exact = await uploadBytes(call, p.secretKey, bytesOf(MAX), 'big.bin', 'application/octet-stream');
    expect(exact.status).toBe(201);
    const got = await fetchPublic(exact.body.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe(String(MAX));
    await got.arrayBuffer();
  });

  it('refuses an oversize body that declares no Content-Length (chunked) with 413', async () => {
    const p = await createProject({ limits: { storageBytes: MAX } });
    const boundary = 'e2eBoundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n\r\n`,
    );
    const chunk = Buffer.alloc(512 * 1024, 1);
    // A raw request from this test's own loopback address (its own rate-limit bucket), chunked:
    // no Content-Length, and more than the limit unless the gateway or storage stops it first.
    const u = new URL(BASE_URL);
    const ip = randomIp();
    const r = await new Promise<{ status: number; json: () => Promise<unknown> }>((resolve, reject) => {
      const req = http.request({
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/api/storage/upload',
        localAddress: loopbackFor(ip),
        headers: {
          'x-api-key': p.secretKey,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'x-forwarded-for': ip,
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: async () => JSON.parse(Buffer.concat(chunks).toString()) as unknown,
          }),
        );
      });
      // the server may answer and close before the whole body is written
      req.on('error', (err: NodeJS.ErrnoException) =>
        err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
      );
      req.write(head);
      let sent = 0;
      const more = () => {
        while (sent <= 2 * MAX && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', more);
        }
        if (!req.destroyed) req.end();
      };
      more();
    });
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const exact = await uploadBytes(client(), p.secretKey, bytesOf(MAX), 'big.bin');
    expect(exact.status).toBe(201);
  });

  it('takes an upload sent with Expect: 100-continue (as curl does for large bodies)', async () => {
    const p = await createProject();
    const boundary = 'curlLike';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      ),
      bytesOf(2 * 1024 * 1024),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const u = new URL(BASE_URL);
    const ip = randomIp();
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/api/storage/upload',
        localAddress: loopbackFor(ip),
        headers: {
          'x-api-key': p.secretKey,
          'x-forwarded-for': ip,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': payload.length,
          expect: '100-continue',
        },
      });
      req.on('continue', () => req.end(payload));
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    expect(status).toBe(201);
  });

  it.each([
    ['page.html', 'text/html'],
    ['image.svg', 'image/svg+xml'],
    ['script.js', 'text/javascript'],
  ])('serves %s as an attachment with nosniff', async (name, type) => {
    const p = await createProject();
    const r = await uploadBytes(
      client(),
      p.secretKey,
      Buffer.from('<script>alert(document.cookie)</script>'),
      name,
      type,
    );
    expect(r.status).toBe(201);
    const got = await fetchPublic(r.body.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe(type);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it('decides the type from the bytes: a script named photo.png is no image, a PNG named notes.txt is', async () => {
    const p = await createProject();
    const cases: Array<[Buffer, string, string, string, string]> = [
      [
        Buffer.from('<script>alert(1)</script>'),
        'photo.png',
        'image/png',
        'application/octet-stream',
        'attachment',
      ],
      [pngBytes(100), 'notes.txt', 'text/plain', 'image/png', 'inline'],
      [Buffer.from('plain words'), 'notes.txt', 'text/plain', 'text/plain', 'attachment'],
    ];
    for (const [bytes, name, declared, served, disposition] of cases) {
      const r = await uploadBytes(client(), p.secretKey, bytes, name, declared);
      expect(r.status).toBe(201);
      const got = await fetchPublic(r.body.url);
      expect([name, got.headers.get('content-type')]).toEqual([name, served]);
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toMatch(new RegExp(`^${disposition}`));
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    }
  });

  it('answers 404 in the error body for a public URL that does not exist', async () => {
    const p = await createProject();
    const call = client();
    for (const path of [`/files/${p.id}/AAAAAAAAAAAAAAAAAAAAAA.png`, `/files/${p.id}/nope`, '/files/x']) {
      const r = await call('GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, code: expect.any(String) });
    }
  });
});
