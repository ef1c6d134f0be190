import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, tracingEnabled } from './telemetry';

/**
 * What an undici request carries (fetch is undici: the gateway's upstream pools publish on the same
 * diagnostics channels), seen by a local server.
 */
let server: Server;
let url: string;
let seen: IncomingHttpHeaders = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen = req.headers;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function traceparentSent(): Promise<string | string[] | undefined> {
  await (await fetch(url)).text();
  return seen.traceparent;
}

describe('startTelemetry / shutdown', () => {
  it('leaves nothing hooked after shutdown: a later start traces once, a stopped one not at all', async () => {
    const exporter = new InMemorySpanExporter();
    const first = startTelemetry('first', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(tracingEnabled()).toBe(true);
    expect(await traceparentSent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await first.shutdown();
    expect(tracingEnabled()).toBe(false);
    expect(await traceparentSent()).toBeUndefined();

    const second = startTelemetry('second', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // one trace context, not one per SDK started in this process
    expect(await traceparentSent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await second.shutdown();
    expect(await traceparentSent()).toBeUndefined();
  });
});
