import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * bench/lib/population.mjs: the addresses the bench's clients send from (X-Forwarded-For). The
 * gateway counts each under the product's default limits (20 per window on the auth routes), so
 * an address must never send more than its share, and a run must not reuse one. An ES module,
 * which this tier does not load, so a node child imports it and prints what it returned.
 */
const POPULATION = join(__dirname, '..', '..', 'bench', 'lib', 'population.mjs');

function run(body: string): unknown {
  const script = `import * as m from ${JSON.stringify(POPULATION)};
process.stdout.write(JSON.stringify((() => { ${body} })()));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  );
}

describe('bench: the client population', () => {
  it('sends REQUESTS_PER_ADDRESS requests from each address, then moves to the next', () => {
    const out = run(`
      const p = new m.ClientPopulation(m.REQUESTS_PER_ADDRESS, 0);
      const sent = Array.from({ length: 3 * m.REQUESTS_PER_ADDRESS + 1 }, () => p.next());
      return { per: m.REQUESTS_PER_ADDRESS, sent, addresses: p.addresses };`) as {
      per: number;
      sent: string[];
      addresses: number;
    };
    expect(out.per).toBe(10);
    const counts = new Map<string, number>();
    for (const a of out.sent) counts.set(a, (counts.get(a) ?? 0) + 1);
    expect([...counts.entries()]).toEqual([
      ['10.0.0.0', 10],
      ['10.0.0.1', 10],
      ['10.0.0.2', 10],
      ['10.0.0.3', 1],
    ]);
    expect(out.addresses).toBe(4);
  });

  it('stays in 10.0.0.0/8 across its end, and keeps the addresses before its start for probes', () => {
    const out = run(`
      const p = new m.ClientPopulation(1, 2 ** 24 - 2);
      return { sent: [p.next(), p.next(), p.next()], probes: [p.address(-1), p.address(-2)] };`) as {
      sent: string[];
      probes: string[];
    };
    expect(out.sent).toEqual(['10.255.255.254', '10.255.255.255', '10.0.0.0']);
    expect(out.probes).toEqual(['10.255.255.253', '10.255.255.252']);
    const zero = run(`return new m.ClientPopulation(1, 0).address(-1);`);
    expect(zero).toBe('10.255.255.255');
  });

  it('starts each process somewhere else, so a second run within the window meets new addresses', () => {
    const starts = run(`return Array.from({ length: 5 }, () => new m.ClientPopulation().start);`) as number[];
    expect(new Set(starts).size).toBe(5);
    for (const s of starts) expect(s).toBeGreaterThanOrEqual(0);
    for (const s of starts) expect(s).toBeLessThan(2 ** 24);
  });

  it('adds the next address to headers, and keeps one the caller set', () => {
    const out = run(`
      const a = m.withClientAddress({ 'x-api-key': 'k' });
      const b = m.withClientAddress({ 'X-Forwarded-For': '192.0.2.1' });
      return { a, b };`) as { a: Record<string, string>; b: Record<string, string> };
    expect(out.a['x-api-key']).toBe('k');
    expect(out.a['x-forwarded-for']).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect(out.b).toEqual({ 'X-Forwarded-For': '192.0.2.1' });
  });
});
