import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { spool } from './spool';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spool-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const chunks = (n: number, size: number) => Array.from({ length: n }, () => randomBytes(size));

async function bytesOf(body: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe('spool', () => {
  it('keeps a body of exactly the memory bound in memory, with its size', async () => {
    const parts = chunks(4, 256);
    const s = await spool(Readable.from(parts), dir, 1024);
    expect(s.size).toBe(1024);
    expect(readdirSync(dir)).toEqual([]);
    expect(Buffer.isBuffer(s.open())).toBe(true);
    expect(await bytesOf(s.open())).toEqual(Buffer.concat(parts));
    await s.dispose();
  });

  it('moves a body one byte past the bound to a private file, read back whole, removed on dispose', async () => {
    const parts = [...chunks(4, 256), Buffer.from([7])];
    const s = await spool(Readable.from(parts), dir, 1024);
    expect(s.size).toBe(1025);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
    // Each open is a fresh stream of the whole body (a retried send reads it again).
    expect(await bytesOf(s.open())).toEqual(Buffer.concat(parts));
    expect(await bytesOf(s.open())).toEqual(Buffer.concat(parts));
    await s.dispose();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('holds an empty body', async () => {
    const s = await spool(Readable.from([]), dir, 1024);
    expect(s.size).toBe(0);
    expect(await text(Readable.from([await bytesOf(s.open())]))).toBe('');
  });

  it('leaves nothing on disk when the body fails midway', async () => {
    const body = new Readable({ read() {} });
    const done = spool(body, dir, 100);
    body.push(randomBytes(500));
    await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(dir)).toHaveLength(1);
    body.destroy(new Error('client went away'));
    await expect(done).rejects.toThrow('client went away');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails, leaving nothing, when the directory cannot be written', async () => {
    await expect(spool(Readable.from(chunks(3, 100)), join(dir, 'missing'), 100)).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
