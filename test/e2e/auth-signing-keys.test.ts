import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { client, createProject } from '../support/e2e';
import { signupUser } from './auth-support';

/** Issue 3: signing keys can be rotated without logging anybody out. */
function kidOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('signing key rotation (platform admin)', () => {
  it('publishes the new key at once, signs with it from signsFrom on, and tokens of either key work everywhere', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      admin: true,
      body: { rls: { enabled: true, mode: 'private', ownerField: 'userId' } },
    });
    const before = await signupUser(call, p.publishableKey);
    const oldKid = kidOf(before.access);

    // A token with a kid nobody knows makes the data service fetch the JWKS now: right after, it
    // may not fetch again for a few seconds (a made-up kid must not make every request a call to
    // auth). A key that signed at once would be refused there until then.
    const stranger = generateKeyPairSync('ed25519');
    const forged = await new SignJWT({ sid: 's', jti: 'j', email_verified: true })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'not-a-published-kid' })
      .setIssuer('baas-auth')
      .setAudience(`project:${p.id}`)
      .setSubject(before.userId)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(stranger.privateKey);
    expect((await call('GET', '/api/data/notes', { key: p.publishableKey, token: forged })).status).toBe(401);

    expect((await call('POST', '/api/admin/signing-keys/rotate', {})).status).toBe(401);
    expect((await call('POST', '/api/admin/signing-keys/rotate', { key: p.secretKey })).status).toBe(401);
    const rot = await call('POST', '/api/admin/signing-keys/rotate', { admin: true });
    expect(rot.status).toBe(200);
    const newKid = rot.body.data.kid as string;
    expect(newKid).not.toBe(oldKid);
    expect(rot.body.data.publishedKids).toEqual(expect.arrayContaining([oldKid, newKid]));
    const signsFrom = Date.parse(rot.body.data.signsFrom as string);
    expect(signsFrom - Date.now()).toBeGreaterThan(5_000); // published ahead (10 s)
    expect(signsFrom - Date.now()).toBeLessThanOrEqual(10_000);

    const jwks = await call('GET', '/.well-known/jwks.json');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
      expect.arrayContaining([oldKid, newKid]),
    );

    // The token signed before the rotation still works at auth and at the data service.
    expect(
      (await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: before.access })).status,
    ).toBe(200);
    const write = await call('POST', '/api/data/notes', {
      key: p.publishableKey,
      token: before.access,
      body: { text: 'old key' },
    });
    expect(write.status).toBe(201);

    // Until signsFrom, sign-ins are still signed with the old key, which every service knows.
    const early = await signupUser(client(), p.publishableKey);
    expect(kidOf(early.access)).toBe(oldKid);
    const earlyRead = await call('GET', '/api/data/notes', { key: p.publishableKey, token: early.access });
    expect(earlyRead.status).toBe(200);
    expect(earlyRead.body.data.items).toEqual([]);

    // From signsFrom on, a new login is signed with the new key, and the data service accepts it.
    await sleep(Math.max(0, signsFrom - Date.now()) + 250);
    const after = await signupUser(client(), p.publishableKey);
    expect(kidOf(after.access)).toBe(newKid);
    const read = await call('GET', '/api/data/notes', { key: p.publishableKey, token: after.access });
    expect(read.status).toBe(200);
    expect(read.body.data.items).toEqual([]);
    expect(
      (await call('GET', '/api/userAuth/me', { key: p.publishableKey, token: after.access })).status,
    ).toBe(200);
  }, 60_000);
});
