#!/usr/bin/env node
// CPU costs of pieces of a request, in this process, without the stack (run `npm run build` first):
//   - the gateway assertion: one Ed25519 signature (gateway) and one verification (a service),
//     paid once per caller and service every 30 s (a key's requests are one caller);
//   - a list-20 page's dates: 40 timestamps read from PostgreSQL's text and written out as ISO
//     strings, as the data service does (the Date keeps the ISO text it was read as) and as it did
//     before (a plain Date, written with toISOString).
// The machine's noise moves req/s between runs far more than these costs; they are measured here
// alternately, many times, and the medians printed.
//
//   node bench/micro-costs.mjs [--rounds 15]
import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const common = require('../packages/common/dist/index.js');
const { parseTimestamptz } = require('../packages/common/dist/postgres/pool.js');
const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const rounds = Number(args.rounds);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const usPer = async (n, fn) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  return Number(process.hrtime.bigint() - t) / n / 1000;
};

// the assertion of a key's request (as the gateway signs it) for the data service
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const claims = {
  admin: false,
  projectId: '64b7f0c2a1b2c3d4e5f60718',
  keyType: 'publishable',
  settings: { publicSignups: true, requireEmailVerification: false, limits: { documents: 1000 } },
};
const tokens = [];
for (let i = 0; i < 500; i++) tokens.push(await common.signAssertion(privateKey, 'data', claims));

// PostgreSQL's text for 40 instants (createdAt, updatedAt of 20 documents)
const texts = Array.from({ length: 40 }, (_, i) => {
  const iso = new Date(Date.UTC(2026, 10, 26, 10, i, 30, 7 * i + 100)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}+00`;
});
const readAndWrite = (read, write) => {
  let n = 0;
  for (const t of texts) n += write(read(t)).length;
  return n;
};
const plainDate = (t) => new Date(Date.parse(`${t.slice(0, 10)}T${t.slice(11, -3)}Z`));

const sign = [];
const verify = [];
const kept = [];
const own = [];
for (let r = 0; r < rounds; r++) {
  sign.push(await usPer(200, () => common.signAssertion(privateKey, 'data', claims)));
  verify.push(await usPer(200, (i) => common.verifyAssertion(publicKey, 'data', tokens[i])));
  kept.push(await usPer(2000, () => readAndWrite(parseTimestamptz, common.isoText)));
  own.push(await usPer(2000, () => readAndWrite(plainDate, (d) => d.toISOString())));
}
console.log(
  `assertion: sign ${median(sign).toFixed(0)} µs (gateway), verify ${median(verify).toFixed(0)} µs (service), per caller and service every 30 s`,
);
console.log(
  `40 timestamps read and written out (a list-20 page): ISO text kept ${median(kept).toFixed(1)} µs, plain Date and toISOString ${median(own).toFixed(1)} µs`,
);
