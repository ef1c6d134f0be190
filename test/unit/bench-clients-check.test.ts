import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * bench/lib/ours.mjs checkClientsCountedApart: the bench refuses to measure a gateway that does
 * not count its clients by X-Forwarded-For (every request would share 127.0.0.1's window) or whose
 * limit leaves no room for ten requests per address. Checked against a small server that answers
 * with the gateway's RateLimit headers, counting per forwarded address (a gateway that trusts the
 * hop) or per connection peer (one that does not). An ES module, so a node child runs it.
 */
const OURS = join(__dirname, '..', '..', 'bench', 'lib', 'ours.mjs');

function check(countBy: 'forwarded' | 'peer', limit: number): string {
  const script = `import http from 'node:http';
import { checkClientsCountedApart } from ${JSON.stringify(OURS)};
const counts = new Map();
const server = http.createServer((req, res) => {
  const key = ${JSON.stringify(countBy)} === 'forwarded' ? req.headers['x-forwarded-for'] : req.socket.remoteAddress;
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  res.writeHead(401, { 'RateLimit-Limit': String(${limit}), 'RateLimit-Remaining': String(${limit} - n) });
  res.end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
let out;
try {
  await checkClientsCountedApart('http://127.0.0.1:' + server.address().port);
  out = 'ok';
} catch (e) {
  out = e.message;
}
server.close();
process.stdout.write(out);`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
}

describe('bench: the gateway must count the clients apart', () => {
  it('goes on when each new address starts a window of its own', () => {
    expect(check('forwarded', 100)).toBe('ok');
  });

  it('refuses a gateway that counts every request under the peer address', () => {
    expect(check('peer', 100)).toMatch(
      /does not count clients by X-Forwarded-For \(RateLimit-Remaining 99 then 98 of 100.*TRUST_PROXY=1/,
    );
  });

  it('takes a limit of twice the requests per address, and refuses one below', () => {
    expect(check('forwarded', 20)).toBe('ok');
    expect(check('forwarded', 19)).toMatch(/allows 19 requests per address.*sends 10 per address/);
  });
});
