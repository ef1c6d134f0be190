import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The bench's login workload must keep each account's attempts in flight under the auth service's
 * per-account limit (LOGIN_ACCOUNT_MAX_ATTEMPTS, 10 before a success), or ours answers 429 and the
 * CI smoke fails: the users go in turn over all connections, so any 20 requests in a row (the
 * connections in flight) hold each account connections / users times. An ES module, which this
 * tier does not load: a node child imports it and prints the emails of 200 requests.
 */
const WORKLOADS = join(__dirname, '..', '..', 'bench', 'workloads', 'side-by-side.mjs');

function emails(users: number, requests: number): string[] {
  const script = `import { loginRequests } from ${JSON.stringify(WORKLOADS)};
const next = loginRequests({ login: (email) => ({ email }) }, ${users});
process.stdout.write(JSON.stringify(Array.from({ length: ${requests} }, () => next().email)));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

it.each([4, 10])('any 20 logins in a row spread evenly over %i users', (users) => {
  const sent = emails(users, 200);
  expect(new Set(sent).size).toBe(users);
  for (let at = 0; at + 20 <= sent.length; at++) {
    const perAccount = new Map<string, number>();
    for (const e of sent.slice(at, at + 20)) perAccount.set(e, (perAccount.get(e) ?? 0) + 1);
    expect(Math.max(...perAccount.values())).toBeLessThanOrEqual(Math.ceil(20 / users));
  }
});

it("warms the login row up for 8 s at least (the run's own warm-up when longer, none in the smoke)", () => {
  const LOAD = join(__dirname, '..', '..', 'bench', 'lib', 'load.mjs');
  const script = `import { loginScenario } from ${JSON.stringify(WORKLOADS)};
import { warmupFor } from ${JSON.stringify(LOAD)};
const login = loginScenario({ baseUrl: 'http://x', login: (email) => ({ email }) }, 10);
process.stdout.write(JSON.stringify([2, 0, 12].map((w) => warmupFor(login, w)).concat(warmupFor({}, 2))));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual([8, 0, 12, 2]);
});
