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
  it('has CLIENTS_AT_ONCE clients take turns, REQUESTS_PER_ADDRESS each, then the next ones', () => {
    const out = run(`
      const p = new m.ClientPopulation(m.REQUESTS_PER_ADDRESS, 0);
      const sent = Array.from({ length: 2 * m.CLIENTS_AT_ONCE * m.REQUESTS_PER_ADDRESS + 1 }, () => p.next());
      return { per: m.REQUESTS_PER_ADDRESS, atOnce: m.CLIENTS_AT_ONCE, sent, addresses: p.addresses };`) as {
      per: number;
      atOnce: number;
      sent: string[];
      addresses: number;
    };
    expect(out.per).toBe(10);
    expect(out.atOnce).toBe(1000);
    const positions = new Map<string, number[]>();
    out.sent.forEach((a, i) => positions.set(a, [...(positions.get(a) ?? []), i]));
    // every address of the two full groups sent exactly its share, one turn every 1000 requests
    const full = [...positions.entries()].filter(([, at]) => at.length === 10);
    expect(full).toHaveLength(2000);
    for (const [, at] of full) expect(at.slice(1).map((x, k) => x - at[k]!)).toEqual(Array(9).fill(1000));
    expect(out.sent.slice(0, 3)).toEqual(['10.0.0.0', '10.0.0.1', '10.0.0.2']);
    expect(out.sent[1000]).toBe('10.0.0.0');
    expect(out.sent[10_000]).toBe('10.0.3.232'); // address 1000: the second group's first
    expect(out.sent[20_000]).toBe('10.0.7.208'); // address 2000: the third group's first
    expect(out.addresses).toBe(2001);
  });

  it('counts the addresses of a group that has not finished', () => {
    const out = run(`
      const p = new m.ClientPopulation(3, 0, 4);
      const sent = Array.from({ length: 14 }, () => p.next());
      return { sent, addresses: p.addresses };`) as { sent: string[]; addresses: number };
    expect(out.sent.map((a) => Number(a.split('.')[3]))).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5]);
    expect(out.addresses).toBe(6);
  });

  it('stays in 10.0.0.0/8 across its end, and keeps the addresses before its start for probes', () => {
    const out = run(`
      const p = new m.ClientPopulation(1, 2 ** 24 - 2, 1);
      return { sent: [p.next(), p.next(), p.next()], probes: [p.address(-1), p.address(-2)] };`) as {
      sent: string[];
      probes: string[];
    };
    expect(out.sent).toEqual(['10.255.255.254', '10.255.255.255', '10.0.0.0']);
    expect(out.probes).toEqual(['10.255.255.253', '10.255.255.252']);
    const zero = run(`return new m.ClientPopulation(1, 0, 1).address(-1);`);
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
