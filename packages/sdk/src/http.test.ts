import { BaasError, createClient } from './index.js';
import { apiError, fakeFetch, json } from '../test/fake-fetch';

const BASE = 'http://gw.test';
const ok = () => json(200, { success: true, data: { items: [], nextCursor: null, limit: 20 } });
const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 2 };

describe('retry policy', () => {
  it('retries GET on 502/503/504 and network errors, then succeeds', async () => {
    const answers = [
      () => apiError(503, 'SERVICE_UNAVAILABLE'),
      () => Promise.reject(new TypeError('fetch failed')),
    ];
    const f = fakeFetch((_c, n) => (answers[n - 1] ?? ok)());
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: fast });
    await expect(client.collection('t').list()).resolves.toMatchObject({ nextCursor: null });
    expect(f.calls).toHaveLength(3);
  });

  it('gives up after `retries` further attempts and throws the last error', async () => {
    const f = fakeFetch(() => apiError(502, 'BAD_GATEWAY'));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: fast });
    await expect(client.collection('t').get('abc')).rejects.toMatchObject({
      status: 502,
      code: 'BAD_GATEWAY',
    });
    expect(f.calls).toHaveLength(3);
  });

  it('retries PUT and DELETE (idempotent) but never POST, whatever the status', async () => {
    const f = fakeFetch(() => apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: fast });
    const todos = client.collection<{ title: string }>('todos');
    await expect(todos.update('a', { title: 'x' })).rejects.toBeInstanceOf(BaasError);
    expect(f.calls).toHaveLength(3);
    await expect(todos.delete('a')).rejects.toBeInstanceOf(BaasError);
    expect(f.calls).toHaveLength(6);
    for (const post of [
      () => todos.insert({ title: 'x' }),
      () => todos.aggregate([]),
      () => client.mail.send({ to: 'a@b.c', subject: 's', text: 't' }),
      () => client.storage.upload(new Blob(['x'])),
    ]) {
      const before = f.calls.length;
      await expect(post()).rejects.toMatchObject({ status: 503 });
      expect(f.calls.length - before).toBe(1);
    }
  });

  it('never retries a POST after a network error either', async () => {
    const f = fakeFetch(() => Promise.reject(new TypeError('socket hang up')));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: fast });
    await expect(client.collection('t').insert({})).rejects.toMatchObject({
      status: 0,
      code: 'NETWORK_ERROR',
    });
    expect(f.calls).toHaveLength(1);
  });

  it('honours Retry-After on 429 and 503', async () => {
    const f = fakeFetch((_c, n) => (n === 1 ? apiError(429, 'RATE_LIMITED', { 'retry-after': '1' }) : ok()));
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'sk_live_x',
      fetch: f,
      retry: { ...fast, maxDelayMs: 1 },
    });
    const t0 = Date.now();
    await client.collection('t').list();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(f.calls).toHaveLength(2);
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs: the error carries it', async () => {
    const f = fakeFetch(() => apiError(429, 'RATE_LIMITED', { 'retry-after': '600' }));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: fast });
    await expect(client.collection('t').list()).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 600000,
    });
    expect(f.calls).toHaveLength(1);
  });

  it('does not retry 4xx answers other than 408/429', async () => {
    const f = fakeFetch(() => apiError(404, 'DOCUMENT_NOT_FOUND'));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: fast });
    await expect(client.collection('t').get('x')).rejects.toMatchObject({ status: 404 });
    expect(f.calls).toHaveLength(1);
  });

  it('retry: false turns retries off', async () => {
    const f = fakeFetch(() => apiError(503, 'SERVICE_UNAVAILABLE'));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: false });
    await expect(client.collection('t').list()).rejects.toMatchObject({ status: 503 });
    expect(f.calls).toHaveLength(1);
  });

  it('backs off exponentially with full jitter, capped', () => {
    const f = fakeFetch(ok);
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f });
    // reach the HttpClient through a collection to check the formula with Math.random pinned
    const spy = jest.spyOn(Math, 'random').mockReturnValue(1);
    const http = (client.collection('t') as unknown as { http: { backoff(n: number): number } }).http;
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => http.backoff(n))).toEqual([
      300, 600, 1200, 2400, 4800, 5000, 5000,
    ]);
    spy.mockRestore();
  });
});

describe('abort signals', () => {
  it('an aborted signal rejects at once, without a request', async () => {
    const f = fakeFetch(ok);
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f });
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(client.collection('t').list({ signal: ac.signal })).rejects.toThrow('stop');
    expect(f.calls).toHaveLength(0);
  });

  it('aborting during a backoff stops the retries', async () => {
    const f = fakeFetch(() => apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '20' }));
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f });
    const ac = new AbortController();
    const p = client.collection('t').list({ signal: ac.signal });
    setTimeout(() => ac.abort(), 30);
    const t0 = Date.now();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(f.calls).toHaveLength(1);
  });

  it('passes the signal to fetch', async () => {
    const f = fakeFetch(ok);
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f });
    const ac = new AbortController();
    await client.collection('t').list({ signal: ac.signal });
    expect(f.calls[0]?.init.signal).toBe(ac.signal);
  });
});

describe('errors', () => {
  it('carry status, code, message, requestId and details from the contract error body', async () => {
    const f = fakeFetch(() =>
      json(400, {
        success: false,
        error: 'Validation failed',
        message: 'Validation failed',
        code: 'VALIDATION_FAILED',
        requestId: 'req-123',
        details: [{ path: 'title', message: 'Required' }],
      }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f });
    const e = (await client
      .collection('t')
      .insert({})
      .catch((x: unknown) => x)) as BaasError;
    expect(e).toBeInstanceOf(BaasError);
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({
      name: 'BaasError',
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Validation failed',
      requestId: 'req-123',
      details: [{ path: 'title', message: 'Required' }],
    });
  });

  it('fall back to x-request-id and HTTP_<status> for a body that is not the contract error body', async () => {
    const f = fakeFetch(
      () => new Response('upstream exploded', { status: 500, headers: { 'x-request-id': 'r-9' } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'sk_live_x', fetch: f, retry: false });
    await expect(client.collection('t').list()).rejects.toMatchObject({
      status: 500,
      code: 'HTTP_500',
      requestId: 'r-9',
      message: 'upstream exploded',
    });
  });
});

describe('requests', () => {
  it('send the key, JSON bodies and encoded paths', async () => {
    const f = fakeFetch(() => json(201, { _id: 'a' }));
    const client = createClient({
      baseUrl: `${BASE}/`,
      apiKey: 'sk_live_x',
      fetch: f,
      headers: { 'x-app': '1' },
    });
    await client.collection('my todos').insert({ title: 't' });
    expect(f.calls[0]?.url).toBe(`${BASE}/api/data/my%20todos`);
    expect(f.calls[0]?.init).toMatchObject({
      method: 'POST',
      headers: { 'x-api-key': 'sk_live_x', 'content-type': 'application/json', 'x-app': '1' },
      body: '{"title":"t"}',
    });
  });
});
