import { createClient, type UploadProgress, type XhrLike } from './index.js';
import { fakeFetch, json } from '../test/fake-fetch';

const result = {
  message: 'File uploaded',
  url: 'http://gw/files/p/abc.txt',
  path: 'p/abc.txt',
  provider: 's3',
};

/** A fake XMLHttpRequest that reports upload progress in 3 steps, then answers 201. */
class FakeXhr implements XhrLike {
  static last: FakeXhr | undefined;
  status = 0;
  responseText = '';
  withCredentials = false;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown;
  onload: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onabort: ((ev: unknown) => void) | null = null;
  ontimeout: ((ev: unknown) => void) | null = null;
  upload: XhrLike['upload'] = { onprogress: null };
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string): void {
    this.headers[k] = v;
  }
  getAllResponseHeaders(): string {
    return 'content-type: application/json\r\nx-request-id: xhr-1\r\n';
  }
  send(body: unknown): void {
    this.body = body;
    setTimeout(() => {
      for (const loaded of [4, 8, 12])
        this.upload.onprogress?.({ loaded, total: 12, lengthComputable: true });
      this.status = 201;
      this.responseText = JSON.stringify(result);
      this.onload?.({});
    }, 5);
  }
  abort(): void {
    this.onabort?.({});
  }
}

describe('upload', () => {
  it('uses XMLHttpRequest when available and reports each progress event', async () => {
    const f = fakeFetch(() => json(500, {}));
    const client = createClient({ baseUrl: 'http://gw', apiKey: 'pk_live_a', fetch: f, xhr: FakeXhr });
    const events: UploadProgress[] = [];
    const r = await client.storage.upload(new Blob(['hello world!']), {
      filename: 'a.txt',
      onProgress: (p) => events.push(p),
    });
    expect(r).toEqual(result);
    expect(events).toEqual([
      { loaded: 4, total: 12 },
      { loaded: 8, total: 12 },
      { loaded: 12, total: 12 },
    ]);
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('http://gw/api/storage/upload');
    expect(xhr.headers['x-api-key']).toBe('pk_live_a');
    expect(xhr.headers['content-type']).toBeUndefined(); // the boundary is the platform's job
    expect(xhr.body).toBeInstanceOf(FormData);
    expect(((xhr.body as FormData).get('file') as File).name).toBe('a.txt');
    expect(f.calls).toHaveLength(0);
  });

  it('aborts an XMLHttpRequest upload with the signal', async () => {
    class Slow extends FakeXhr {
      override send(): void {
        /* never answers */
      }
    }
    const client = createClient({
      baseUrl: 'http://gw',
      apiKey: 'pk_live_a',
      fetch: fakeFetch(() => json(200, {})),
      xhr: Slow,
    });
    const ac = new AbortController();
    const p = client.storage.upload(new Blob(['x']), { onProgress: () => undefined, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('falls back to fetch without progress granularity: 0 before, total after', async () => {
    const f = fakeFetch(() => json(201, result));
    const client = createClient({ baseUrl: 'http://gw', apiKey: 'pk_live_a', fetch: f, xhr: false });
    const events: UploadProgress[] = [];
    await client.storage.upload(new Blob(['12345']), { onProgress: (p) => events.push(p) });
    expect(events).toEqual([
      { loaded: 0, total: 5 },
      { loaded: 5, total: 5 },
    ]);
    expect(f.calls[0]?.init.body).toBeInstanceOf(FormData);
    expect(f.calls[0]?.init.headers['content-type']).toBeUndefined();
  });

  it('delete sends the path as JSON', async () => {
    const f = fakeFetch(() => json(200, { success: true, data: {}, message: 'deleted' }));
    const client = createClient({ baseUrl: 'http://gw', apiKey: 'pk_live_a', fetch: f });
    await client.storage.delete('p/abc.txt');
    expect(f.calls[0]?.init).toMatchObject({ method: 'DELETE', body: '{"path":"p/abc.txt"}' });
  });
});
