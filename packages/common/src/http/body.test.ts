import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { errorHandler } from './error-handler';
import { JSON_BODY_MAX_DEPTH, jsonBody, pathPastDepth } from './body';

/** `{ a: { a: … 1 } }` with the 1 at `levels` levels (the body's own field is level 1). */
const objects = (levels: number): unknown => (levels === 0 ? 1 : { a: objects(levels - 1) });
/** `[[… 1]]` as the value of field `l`, with the 1 at `levels` levels. */
const arrays = (levels: number): unknown => ({
  l: JSON.parse('['.repeat(levels - 1) + '1' + ']'.repeat(levels - 1)),
});

async function post(body: string): Promise<{ status: number; json: Record<string, any> }> {
  const app = express();
  app.post('/x', jsonBody('2mb'), (req, res) => void res.json({ got: req.body !== undefined }));
  app.use(errorHandler(pino({ level: 'silent' })));
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

describe('JSON body depth', () => {
  it('is 32 levels, the documents’ bound', () => {
    expect(JSON_BODY_MAX_DEPTH).toBe(32);
  });

  it('finds nothing at the limit and the first path one level past it, in objects and arrays', () => {
    expect(pathPastDepth(objects(32))).toBeUndefined();
    expect(pathPastDepth(objects(33))).toBe(`a${'.a'.repeat(32)}`);
    expect(pathPastDepth(arrays(32))).toBeUndefined();
    expect(pathPastDepth(arrays(33))).toBe(`l${'.0'.repeat(32)}`);
    expect(pathPastDepth([[1]], 1)).toBe('0.0');
    expect(pathPastDepth('text')).toBeUndefined();
    expect(pathPastDepth(null)).toBeUndefined();
  });

  it('passes a body at the limit to the route', async () => {
    expect(await post(JSON.stringify(objects(32)))).toEqual({ status: 200, json: { got: true } });
    expect((await post(JSON.stringify(arrays(32)))).status).toBe(200);
  });

  it('refuses a body one level past it with 400 VALIDATION_FAILED and the path', async () => {
    const r = await post(JSON.stringify(objects(33)));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      success: false,
      code: 'VALIDATION_FAILED',
      details: [{ path: `a${'.a'.repeat(32)}`, message: 'nested more than 32 levels' }],
    });
  });

  it('refuses a hostile body of 500,000 nested arrays with a 400, not a crash', async () => {
    const r = await post('['.repeat(500_000) + ']'.repeat(500_000));
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('VALIDATION_FAILED');
  });

  it('still refuses malformed JSON as MALFORMED_JSON', async () => {
    expect((await post('{"a":')).json.code).toBe('MALFORMED_JSON');
  });
});
