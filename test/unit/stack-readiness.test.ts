import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stackNotReady } from '../support/stack-readiness';

const servers: Server[] = [];

async function serve(status: () => number): Promise<string> {
  const s = createServer((req, res) => {
    res.statusCode = req.url === '/readyz' ? status() : 404;
    res.end();
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('stackNotReady (the e2e tier checks the stack before each file)', () => {
  it('is empty when every process answers, and names each one that does not', async () => {
    const ok = await serve(() => 200);
    const draining = await serve(() => 503);
    const closed = await serve(() => 200);
    await new Promise((r) => servers.pop()!.close(r));
    expect(await stackNotReady({ BASE_URL: ok, AUTH_URL: ok, OTHER: 'ignored' }, 0)).toEqual([]);
    const problems = await stackNotReady({ BASE_URL: ok, DATA_URL: draining, MAIL_URL: closed }, 0);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(`data (${draining}, log .stack/logs/data.log): readyz answered 503`);
    expect(problems[1]?.startsWith(`mail (${closed}, log .stack/logs/mail.log): `)).toBe(true);
  });

  it('waits for a process that comes back (one that an earlier file restarted)', async () => {
    let answers = 0;
    const coming = await serve(() => (++answers < 3 ? 503 : 200));
    expect(await stackNotReady({ AUTH_URL: coming }, 10_000)).toEqual([]);
    expect(answers).toBe(3);
  });
});
