import type { KeyObject } from 'node:crypto';
import { generateKeyPair, SignJWT, type JWTVerifyGetKey } from 'jose';
import { RevocationList } from './revocation-list';
import { trustedProjectId } from './tenancy';
import {
  ACCESS_TOKEN_ALG,
  ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS,
  ACCESS_TOKEN_ISSUER,
  ACCESS_TOKEN_TYP,
  accessTokenAudience,
  createAccessTokenVerifier,
  MAX_ACCESS_TOKEN_LIFETIME_SECONDS,
} from './user-tokens';

const P = trustedProjectId('a'.repeat(24));
const OTHER = trustedProjectId('b'.repeat(24));
const T0 = Date.parse('2026-06-01T00:00:00Z');

describe('access token verifier: verified tokens remembered until they expire', () => {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  beforeAll(async () => {
    ({ privateKey, publicKey } = await generateKeyPair(ACCESS_TOKEN_ALG, { crv: 'Ed25519' }));
  });

  /** A token as auth issues it, at T0 + `atSeconds`, living `ttl` seconds. */
  function token(
    over: { sid?: string; sub?: string; project?: string; atSeconds?: number; ttl?: number } = {},
  ) {
    const iat = T0 / 1000 + (over.atSeconds ?? 0);
    return new SignJWT({ sid: over.sid ?? 's1', jti: `j-${Math.random()}`, email_verified: true })
      .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid: 'k1' })
      .setSubject(over.sub ?? 'u1')
      .setIssuer(ACCESS_TOKEN_ISSUER)
      .setAudience(accessTokenAudience(over.project ?? P))
      .setIssuedAt(iat)
      .setExpirationTime(iat + (over.ttl ?? 900))
      .sign(privateKey);
  }

  /** A verifier on a clock the test moves, counting how often jose asked for the key. */
  function setUp(opts: { cacheMax?: number } = {}) {
    const clock = { t: T0 };
    const lookups = { n: 0 };
    const keys: JWTVerifyGetKey = async () => {
      lookups.n++;
      return publicKey;
    };
    const revocations = new RevocationList(930_000, () => clock.t);
    const verifier = createAccessTokenVerifier(keys, undefined, revocations, { ...opts, now: () => clock.t });
    return { clock, lookups, revocations, verifier };
  }

  it('checks a token’s signature once, then answers from memory with the same principal', async () => {
    const { lookups, verifier } = setUp();
    const t = await token();
    const first = await verifier.verify(t, P);
    expect(first).toEqual({ userId: 'u1', sessionId: 's1', emailVerified: true, issuedAt: T0 / 1000 });
    first.userId = 'tampered by a caller';
    expect(await verifier.verify(t, P)).toEqual({ ...first, userId: 'u1' });
    expect(lookups.n).toBe(1);
  });

  it('accepts a remembered token up to exp + tolerance and refuses it from then on', async () => {
    const { clock, verifier } = setUp();
    const t = await token({ ttl: 900 });
    await verifier.verify(t, P);
    clock.t = T0 + (900 + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS) * 1000 - 1;
    await expect(verifier.verify(t, P)).resolves.toMatchObject({ userId: 'u1' });
    clock.t += 1;
    await expect(verifier.verify(t, P)).rejects.toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    await expect(verifier.verify(t, P)).rejects.toMatchObject({ status: 401 });
  });

  it('accepts tokens meant to live up to 15 minutes and refuses one meant to live longer', async () => {
    expect(MAX_ACCESS_TOKEN_LIFETIME_SECONDS).toBe(900);
    const { verifier } = setUp();
    await expect(verifier.verify(await token({ ttl: 900 }), P)).resolves.toMatchObject({ userId: 'u1' });
    await expect(verifier.verify(await token({ ttl: 901 }), P)).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_TOKEN',
    });
  });

  it('checks revocations on every use, remembered or not', async () => {
    const { clock, revocations, verifier } = setUp();
    const t = await token({ sid: 's1' });
    const other = await token({ sid: 's2' });
    await verifier.verify(t, P);
    await verifier.verify(other, P);
    revocations.revokeSession(P, 's1', clock.t);
    await expect(verifier.verify(t, P)).rejects.toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    await expect(verifier.verify(other, P)).resolves.toMatchObject({ sessionId: 's2' });
    revocations.revokeUser(P, 'u1', Infinity, clock.t);
    await expect(verifier.verify(other, P)).rejects.toMatchObject({ status: 401 });
  });

  it('does not carry a token verified for one project over to another', async () => {
    const { lookups, verifier } = setUp();
    const t = await token({ project: P });
    await verifier.verify(t, P);
    await expect(verifier.verify(t, OTHER)).rejects.toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    expect(lookups.n).toBe(2);
  });

  it('never remembers a refusal: a bad token is checked, and refused, each time', async () => {
    const { lookups, verifier } = setUp();
    const t = await token();
    const forged = `${t.slice(0, -4)}${t.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(verifier.verify(forged, P)).rejects.toMatchObject({ status: 401 });
    await expect(verifier.verify(forged, P)).rejects.toMatchObject({ status: 401 });
    expect(lookups.n).toBe(2);
    const tooLong = await token({ ttl: 3601 });
    await expect(verifier.verify(tooLong, P)).rejects.toMatchObject({ status: 401 });
    await expect(verifier.verify(tooLong, P)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a token not yet valid on its clock and accepts it once it is', async () => {
    const { clock, verifier } = setUp();
    const future = await token({ atSeconds: 120 });
    await expect(verifier.verify(future, P)).rejects.toMatchObject({ status: 401 });
    clock.t = T0 + 120_000;
    await expect(verifier.verify(future, P)).resolves.toMatchObject({ userId: 'u1' });
  });

  it('keeps at most cacheMax tokens, the least recently used going first', async () => {
    const { lookups, verifier } = setUp({ cacheMax: 2 });
    const [a, b, c] = await Promise.all([token({ sub: 'a' }), token({ sub: 'b' }), token({ sub: 'c' })]);
    await verifier.verify(a, P);
    await verifier.verify(b, P);
    await verifier.verify(a, P); // a is now the most recent
    expect(lookups.n).toBe(2);
    await verifier.verify(c, P); // evicts b
    await verifier.verify(a, P);
    expect(lookups.n).toBe(3);
    await verifier.verify(b, P);
    expect(lookups.n).toBe(4);
  });
});
