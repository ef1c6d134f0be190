import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { connect } from '@nats-io/transport-node';
import { answerJanitor, createLogger, type ProjectId } from '@baas/common';
import { requireInfra, storeNeed } from '../../../../test/support/infra';
import { sweepOrphans } from '../../src/domain/files/sweep-orphans';
import { deleteProjectFiles } from '../../src/domain/files/delete-project-files';
import {
  form,
  keyAssertion,
  newProjectId,
  publicAssertion,
  startHarness,
  type Driver,
  type Harness,
} from './harness';

// Over S3's 5 MB part size, so the S3 driver's multipart path (and its abort) is exercised.
const MAX = 6 * 1024 * 1024;

describe.each<Driver>(['s3', 'local'])('storage service with the %s driver', (driver) => {
  let h: Harness;

  beforeAll(async () => {
    await requireInfra(storeNeed(), 'nats', ...(driver === 's3' ? (['s3'] as const) : []));
    h = await startHarness(driver, MAX);
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(async () => {
    // Every upload, stored, refused or abandoned, leaves nothing in the S3 driver's spool.
    for (let i = 0; i < 20 && (await h.spooled()).length > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await h.spooled()).toEqual([]);
  });

  async function upload(
    pid: ProjectId,
    body: FormData | string | ReadableStream<Uint8Array>,
    opts: { quota?: number; headers?: Record<string, string> } = {},
  ) {
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'POST',
      headers: { 'x-gateway-assertion': await keyAssertion(pid, opts.quota), ...opts.headers },
      body,
    };
    // Needed by fetch for stream bodies.
    if (body instanceof ReadableStream) init.duplex = 'half';
    const r = await fetch(`${h.url}/api/storage/upload`, init);
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  }

  async function del(pid: ProjectId, path: unknown) {
    const r = await fetch(`${h.url}/api/storage/file`, {
      method: 'DELETE',
      headers: { 'x-gateway-assertion': await keyAssertion(pid), 'content-type': 'application/json' },
      body: JSON.stringify({ path }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  }

  async function getPublic(path: string) {
    return fetch(`${h.url}/files/${path}`, { headers: { 'x-gateway-assertion': await publicAssertion() } });
  }

  const objectsOf = async (pid: ProjectId) =>
    (await h.store.list({ prefix: `${pid}/`, limit: 1000 })).items.map((o) => o.key);
  const recordsOf = (pid: ProjectId) => h.recordsOf(pid);

  it('stores an upload under a generated path and serves it publicly with its type', async () => {
    const pid = newProjectId();
    const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(992)]); // a PNG's signature
    const r = await upload(pid, form(bytes, 'photo.png', 'image/png'));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      message: expect.any(String),
      url: `http://files.test/files/${r.body.path}`,
      path: expect.stringMatching(new RegExp(`^${pid}/[A-Za-z0-9_-]{22}\\.png$`)),
      provider: driver,
    });
    expect(await objectsOf(pid)).toEqual([r.body.path]);
    const [rec] = await recordsOf(pid);
    expect(rec).toMatchObject({
      path: r.body.path,
      status: 'complete',
      size: 1000,
      contentType: 'image/png',
      reserved: 0,
    });
    expect(await h.quota.used(pid)).toBe(1000);

    const got = await getPublic(r.body.path);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-disposition')).toMatch(/^inline/);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    await h.relay.flush();
    expect(h.events.find((e) => e.type === 'file.uploaded' && e.projectId === pid)?.data).toEqual({
      path: r.body.path,
      size: 1000,
      contentType: 'image/png',
    });
  });

  it('gives two uploads of the same file name different paths', async () => {
    const pid = newProjectId();
    const a = await upload(pid, form(Buffer.from('a'), 'photo.png'));
    const b = await upload(pid, form(Buffer.from('b'), 'photo.png'));
    expect(a.body.path).not.toBe(b.body.path);
    expect((await objectsOf(pid)).sort()).toEqual([a.body.path, b.body.path].sort());
  });

  it('keeps traversal in the client file name out of the path', async () => {
    const pid = newProjectId();
    const r = await upload(pid, form(Buffer.from('x'), '../../64b7f0c2a1b2c3d4e5f60719/evil.png'));
    expect(r.status).toBe(201);
    expect(r.body.path.startsWith(`${pid}/`)).toBe(true);
    expect(r.body.path.split('/')).toHaveLength(2);
  });

  it('answers 400 when the file field is missing or the body is not multipart', async () => {
    const pid = newProjectId();
    const f = new FormData();
    f.append('other', new Blob([Buffer.from('x')]), 'x.png');
    f.append('file', 'just a text field');
    expect(await upload(pid, f)).toMatchObject({
      status: 400,
      body: { success: false, code: 'FILE_REQUIRED' },
    });
    const json = await upload(pid, JSON.stringify({ file: 'x' }), {
      headers: { 'content-type': 'application/json' },
    });
    expect(json).toMatchObject({ status: 400, body: { code: 'FILE_REQUIRED' } });
    expect(await objectsOf(pid)).toEqual([]);
    expect(await recordsOf(pid)).toEqual([]);
  });

  it.each([
    ['inside the file', 'x'],
    ['after the file, before the closing boundary', 'x\r\n'],
    ['inside a part header', ''],
  ])(
    'answers 400 MALFORMED_MULTIPART to a body that breaks off %s, leaving nothing behind',
    async (_, tail) => {
      const pid = newProjectId();
      const boundary = 'brokenoff';
      const head =
        tail === ''
          ? `--${boundary}\r\nContent-Disposition: form-data; name="file"; filena`
          : `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n` +
            `Content-Type: text/plain\r\n\r\n${tail}`;
      const r = await upload(pid, head, {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(r).toMatchObject({ status: 400, body: { success: false, code: 'MALFORMED_MULTIPART' } });
      expect(await objectsOf(pid)).toEqual([]);
      expect(await recordsOf(pid)).toEqual([]);
    },
  );

  it('accepts exactly the size limit and refuses one byte more with 413, leaving nothing behind', async () => {
    const pid = newProjectId();
    const ok = await upload(pid, form(randomBytes(MAX), 'big.bin', 'application/octet-stream'));
    expect(ok.status).toBe(201);
    const tooBig = await upload(pid, form(randomBytes(MAX + 1), 'big.bin', 'application/octet-stream'));
    expect(tooBig).toMatchObject({ status: 413, body: { success: false, code: 'PAYLOAD_TOO_LARGE' } });
    expect(await objectsOf(pid)).toEqual([ok.body.path]);
    expect((await recordsOf(pid)).map((d) => d.path)).toEqual([ok.body.path]);
    expect(await h.quota.used(pid)).toBe(MAX);
  });

  it('enforces the limit while streaming a body that declares no length', async () => {
    const pid = newProjectId();
    const boundary = 'xBOUNDARYx';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 7);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctrl) {
        if (sent === 0) ctrl.enqueue(head);
        if (sent > MAX * 2) return ctrl.close();
        sent += chunk.length;
        ctrl.enqueue(chunk);
      },
    });
    const r = await upload(pid, stream, {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(r).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(await objectsOf(pid)).toEqual([]);
    expect(await recordsOf(pid)).toEqual([]);
    expect(await h.quota.used(pid)).toBe(0);
  });

  it('keeps reading a refused chunked body after its 413, so that a proxy still sending it reads the answer', async () => {
    // The gateway streams a body while the service has already answered: had the service closed
    // the connection after its 413 (Connection: close), the rest of the body would meet a reset,
    // and a proxy that had not yet read the answer would report a 502 instead.
    const pid = newProjectId();
    const assertion = await keyAssertion(pid);
    const head = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n\r\n');
    const chunk = Buffer.alloc(256 * 1024, 7);
    const u = new URL(h.url);
    const outcome = await new Promise<{ status: number; connection: string | undefined; error?: string }>(
      (resolve) => {
        let answer: { status: number; connection: string | undefined } | undefined;
        const req = http.request({
          host: u.hostname,
          port: u.port,
          method: 'POST',
          path: '/api/storage/upload',
          headers: {
            'x-gateway-assertion': assertion,
            'content-type': 'multipart/form-data; boundary=b',
            'transfer-encoding': 'chunked',
          },
        });
        req.on('error', (e: NodeJS.ErrnoException) =>
          resolve({ ...(answer ?? { status: 0, connection: undefined }), error: e.code }),
        );
        req.on('response', (res) => {
          answer = { status: res.statusCode ?? 0, connection: res.headers.connection };
          res.resume();
          // the rest of the body, sent once the answer is in (as a proxy's stream would go on)
          setTimeout(() => {
            for (let sent = 0; sent < MAX; sent += chunk.length) req.write(chunk);
            req.end();
          }, 100);
          res.on('end', () => setTimeout(() => resolve(answer!), 300));
        });
        req.write(head);
        for (let sent = 0; sent <= MAX; sent += chunk.length) req.write(chunk);
      },
    );
    expect(outcome).toEqual({ status: 413, connection: 'keep-alive' });
  });

  it('rejects at once a body whose Content-Length is already over the limit', async () => {
    const pid = newProjectId();
    // fetch refuses a Content-Length that does not match the body, so speak HTTP by hand: the
    // answer must come before the (never sent) body.
    const status = await rawRequest(h.url, pid, MAX * 3);
    expect(status).toBe(413);
  });

  it('leaves nothing behind when the client goes away mid-upload', async () => {
    const pid = newProjectId();
    const assertion = await keyAssertion(pid);
    const u = new URL(h.url);
    const net = await import('node:net');
    await new Promise<void>((resolve) => {
      const s = net.connect(Number(u.port), u.hostname, () => {
        s.write(
          `POST /api/storage/upload HTTP/1.1\r\nHost: x\r\nx-gateway-assertion: ${assertion}\r\n` +
            `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 3000000\r\n\r\n` +
            `--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`,
        );
        s.write(Buffer.alloc(1_500_000, 1), () => setTimeout(() => s.destroy(), 300));
      });
      s.on('close', () => resolve());
      s.on('error', () => undefined);
    });
    for (let i = 0; i < 50 && (await recordsOf(pid)).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await recordsOf(pid)).toEqual([]);
    expect(await objectsOf(pid)).toEqual([]);
    expect(await h.quota.used(pid)).toBe(0);
  });

  it('lets an upload fill the quota exactly and refuses the next byte with 403', async () => {
    const pid = newProjectId();
    const quota = 5000;
    expect((await upload(pid, form(randomBytes(3000)), { quota })).status).toBe(201);
    expect((await upload(pid, form(randomBytes(2000)), { quota })).status).toBe(201);
    const over = await upload(pid, form(randomBytes(1)), { quota });
    expect(over).toMatchObject({ status: 403, body: { code: 'QUOTA_EXCEEDED' } });
    expect(await h.quota.used(pid)).toBe(quota);
    expect(await objectsOf(pid)).toHaveLength(2);
    expect(await recordsOf(pid)).toHaveLength(2);
  });

  it('never overshoots the quota with parallel uploads', async () => {
    const pid = newProjectId();
    const quota = 10 * 1000;
    const results = await Promise.all(
      Array.from({ length: 30 }, () => upload(pid, form(randomBytes(1000)), { quota })),
    );
    const accepted = results.filter((r) => r.status === 201);
    expect(
      results.every((r) => r.status === 201 || (r.status === 403 && r.body.code === 'QUOTA_EXCEEDED')),
    ).toBe(true);
    expect(accepted.length).toBeLessThanOrEqual(10);
    expect(accepted.length).toBeGreaterThan(0);
    const recs = await recordsOf(pid);
    expect(recs).toHaveLength(accepted.length);
    expect(await h.quota.used(pid)).toBe(recs.reduce((s, d) => s + d.size, 0));
    expect((await objectsOf(pid)).sort()).toEqual(accepted.map((r) => String(r.body.path)).sort());
  });

  it('serves html and svg as attachments with nosniff', async () => {
    const pid = newProjectId();
    for (const [name, type] of [
      ['x.html', 'text/html'],
      ['x.svg', 'image/svg+xml'],
    ] as const) {
      const r = await upload(pid, form(Buffer.from('<script>alert(1)</script>'), name, type));
      const got = await getPublic(r.body.path);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe(type);
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toMatch(/^attachment/);
    }
  });

  it('answers another method on a public file URL 404 ROUTE_NOT_FOUND, and keeps the file', async () => {
    const pid = newProjectId();
    const up = await upload(pid, form(Buffer.from('kept'), 'kept.txt', 'text/plain'));
    expect(up.status).toBe(201);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const r = await fetch(`${h.url}/files/${up.body.path}`, {
        method,
        headers: { 'x-gateway-assertion': await publicAssertion() },
      });
      expect([method, r.status, ((await r.json()) as { code: string }).code]).toEqual([
        method,
        404,
        'ROUTE_NOT_FOUND',
      ]);
    }
    const kept = await getPublic(up.body.path);
    expect([kept.status, await kept.text()]).toEqual([200, 'kept']);
  });

  it('answers 404 for a public path that does not exist', async () => {
    const pid = newProjectId();
    for (const p of [`${pid}/AAAAAAAAAAAAAAAAAAAAAA.png`, `${pid}/nope`, 'x/y', `${pid}/a/b`]) {
      const r = await getPublic(p);
      expect(r.status).toBe(404);
      expect(await r.json()).toMatchObject({ success: false, code: expect.any(String) });
    }
  });

  it('deletes a file permanently, releases its quota, and 404s the second time', async () => {
    const pid = newProjectId();
    const up = await upload(pid, form(randomBytes(700)));
    const d = await del(pid, up.body.path);
    expect(d).toEqual({ status: 200, body: { success: true, data: {}, message: expect.any(String) } });
    expect(await objectsOf(pid)).toEqual([]);
    expect((await getPublic(up.body.path)).status).toBe(404);
    expect(await h.quota.used(pid)).toBe(0);
    expect(await del(pid, up.body.path)).toMatchObject({ status: 404, body: { code: 'FILE_NOT_FOUND' } });
    await h.relay.flush();
    expect(h.events.find((e) => e.type === 'file.deleted' && e.projectId === pid)?.data).toEqual({
      path: up.body.path,
      size: 700,
    });
    expect(await recordsOf(pid)).toEqual([]);
  });

  it("answers 404 for another project's path and leaves that file alone", async () => {
    const owner = newProjectId();
    const other = newProjectId();
    const up = await upload(owner, form(randomBytes(10)));
    expect(await del(other, up.body.path)).toMatchObject({ status: 404, body: { code: 'FILE_NOT_FOUND' } });
    expect(await objectsOf(owner)).toEqual([up.body.path]);
    expect((await getPublic(up.body.path)).status).toBe(200);
  });

  it('refuses traversal strings in a delete path with 400', async () => {
    const pid = newProjectId();
    const up = await upload(pid, form(randomBytes(10)));
    const name = up.body.path.split('/')[1];
    for (const p of [
      `${pid}/../${pid}/${name}`,
      `${pid}/..%2f${name}`,
      `${pid}/%2e%2e/${name}`,
      `${pid}\\${name}`,
      `${pid}/${name}\u0000`,
      `/${up.body.path}`,
    ]) {
      expect(await del(pid, p)).toMatchObject({ status: 400, body: { code: 'INVALID_PATH' } });
    }
    expect(await del(pid, 123)).toMatchObject({ status: 400 });
    expect(await objectsOf(pid)).toEqual([up.body.path]);
  });

  it('removes a project’s objects, records and usage when the project is deleted', async () => {
    const gone = newProjectId();
    const kept = newProjectId();
    await upload(gone, form(randomBytes(10)));
    await upload(gone, form(randomBytes(10)));
    const keep = await upload(kept, form(randomBytes(10)));
    await deleteProjectFiles(h.deps, gone);
    await deleteProjectFiles(h.deps, gone); // a redelivery finds nothing to do
    expect(await objectsOf(gone)).toEqual([]);
    expect(await recordsOf(gone)).toEqual([]);
    expect(await h.quota.used(gone)).toBe(0);
    expect(await objectsOf(kept)).toEqual([keep.body.path]);
  });

  it('answers the janitor: orphan objects, stale pending uploads and records without objects go', async () => {
    const pid = newProjectId();
    const live = await upload(pid, form(randomBytes(10)));
    const lost = await upload(pid, form(randomBytes(20)));
    await h.store.delete(lost.body.path); // record without object
    const orphan = `${pid}/BBBBBBBBBBBBBBBBBBBBBB.png`;
    await h.store.put(orphan, ReadableFrom('orphan'), 'image/png'); // object without record
    const stale = `${pid}/CCCCCCCCCCCCCCCCCCCCCC.png`;
    await h.files.insertPending({
      path: stale,
      projectId: pid,
      status: 'pending',
      contentType: 'image/png',
      originalName: 'x',
      size: 0,
      reserved: 0,
      createdAt: new Date(Date.now() - 3600_000),
    });
    await h.quota.reserve(pid, 500, 1e9);
    await h.files.addReserved(pid, stale, 500);
    await h.store.put(stale, ReadableFrom('half'), 'image/png');

    const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
    const subject = `test.storage.sweep.${randomBytes(4).toString('hex')}`;
    const sub = answerJanitor(nc, subject, createLogger('t', 'silent'), (cmd) =>
      sweepOrphans({ ...h.deps, cursor: h.cursor }, cmd, { graceSeconds: 0, maxDeletions: 1000 }),
    );
    try {
      const ask = async (olderThan: Date): Promise<Record<string, unknown>> => {
        const m = await nc.request(
          subject,
          JSON.stringify({ olderThan: olderThan.toISOString(), batchSize: 1000 }),
          { timeout: 10000 },
        );
        return JSON.parse(m.string()) as Record<string, unknown>;
      };
      // Everything is younger than this: nothing but the stale upload (an hour old) may go.
      const young = await ask(new Date(Date.now() - 60_000));
      expect(young).toMatchObject({ ok: true, processed: 1 });
      expect(await h.files.exists(pid, stale)).toBe(false);
      expect(await h.store.exists(orphan)).toBe(true);
      let reply: Record<string, unknown>;
      // Two sweeps: a record whose object is gone goes on the second that misses it.
      for (let sweep = 0; sweep < 2; sweep++) {
        do reply = await ask(new Date(Date.now() + 60_000));
        while (reply.more === true);
        expect(reply.ok).toBe(true);
      }
      expect(await objectsOf(pid)).toEqual([live.body.path]);
      expect((await recordsOf(pid)).map((d) => d.path)).toEqual([live.body.path]);
      expect(await h.quota.used(pid)).toBe(10);
      const bad = await nc.request(subject, JSON.stringify({ nope: 1 }), { timeout: 5000 });
      expect(JSON.parse(bad.string())).toMatchObject({ ok: false });
    } finally {
      await sub.close();
      await nc.close();
    }
  });
});

function ReadableFrom(s: string) {
  return Readable.from([Buffer.from(s)]);
}

async function rawRequest(base: string, pid: ProjectId, contentLength: number): Promise<number> {
  const net = await import('node:net');
  const u = new URL(base);
  const assertion = await keyAssertion(pid);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(u.port), u.hostname, () => {
      s.write(
        `POST /api/storage/upload HTTP/1.1\r\nHost: x\r\nx-gateway-assertion: ${assertion}\r\n` +
          `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${contentLength}\r\n\r\n--x\r\n`,
      );
    });
    let data = '';
    s.on('data', (c) => {
      data += c.toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        s.destroy();
        resolve(Number(m[1]));
      }
    });
    s.on('error', reject);
  });
}
