import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { ObjectStore, StoredObject } from '../ports';

const TMP = '.tmp';

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Files on local disk under one root, for a single machine. Writes go to a temporary file and
 * are renamed into place when complete, so a failed upload never leaves a partial file at its
 * key. Keys are checked to stay inside the root whatever they contain.
 */
export class LocalObjectStore implements ObjectStore {
  readonly provider = 'local';
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async init(): Promise<void> {
    await fs.mkdir(path.join(this.root, TMP), { recursive: true });
  }

  async ping(): Promise<void> {
    await fs.access(this.root);
  }

  private fileOf(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep) || key.includes('\0'))
      throw new Error(`object key outside the store: ${key}`);
    return full;
  }

  async put(key: string, body: Readable, _contentType: string): Promise<void> {
    const target = this.fileOf(key);
    const tmp = path.join(this.root, TMP, randomUUID());
    try {
      await pipeline(body, createWriteStream(tmp, { flags: 'wx' }));
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.rename(tmp, target);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
  }

  async get(key: string): Promise<Readable | null> {
    const file = this.fileOf(key);
    try {
      // Opened first so a missing file is a null here, not a stream error later.
      const handle = await fs.open(file, 'r');
      return handle.createReadStream({ autoClose: true });
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.fileOf(key))).isFile();
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.fileOf(key), { force: true });
  }

  /** Key order like S3 (`<dir>/<file>`, byte-wise); temporary files are listed as `.tmp/<id>`. */
  async list(opts: {
    prefix?: string;
    startAfter?: string;
    limit: number;
  }): Promise<{ items: StoredObject[]; done: boolean }> {
    const prefix = opts.prefix ?? '';
    const after = opts.startAfter ?? '';
    const items: StoredObject[] = [];
    const dirs = (await this.readdir(this.root))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    for (const dir of dirs) {
      if (!`${dir}/`.startsWith(prefix) && !prefix.startsWith(`${dir}/`)) continue;
      if (`${dir}/\uffff` <= after) continue;
      const names = (await this.readdir(path.join(this.root, dir)))
        .filter((f) => f.isFile())
        .map((f) => f.name)
        .sort();
      for (const name of names) {
        const key = `${dir}/${name}`;
        if (key <= after || !key.startsWith(prefix)) continue;
        if (items.length === opts.limit) return { items, done: false };
        const st = await fs.stat(path.join(this.root, dir, name)).catch(() => null);
        if (st) items.push({ key, lastModified: st.mtime });
      }
    }
    return { items, done: true };
  }

  private async readdir(dir: string) {
    try {
      return await fs.readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return [];
      throw e;
    }
  }
}
