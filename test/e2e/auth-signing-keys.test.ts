import { client, createProject } from '../support/e2e';
import { signupUser } from './auth-support';

/** Issue 3: signing keys can be rotated without logging anybody out. */
function kidOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
}

describe('signing key rotation (platform admin)', () => {
  it('signs new tokens with a new key while tokens signed before keep working everywhere', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      admin: true,
      body: { rls: { enabled: true, mode: 'private', ownerField: 'userId' } },
    });
    const before = await signupUser(call, p.publishableKey);
    const oldKid = kidOf(before.access);

    expect((await call('POST', '/api/admin/signing-keys/rotate', {})).status).toBe(401);
    expect((await call('POST', '/api/admin/signing-keys/rotate', { key: p.secretKey })).status).toBe(401);
    const rot = await call('POST', '/api/admin/signing-keys/rotate', { admin: true });
    expect(rot.status).toBe(200);
    expect(rot.body.data.kid).not.toBe(oldKid);
    expect(rot.body.data.publishedKids).toEqual(expect.arrayContaining([oldKid, rot.body.data.kid]));

    const jwks = await call('GET', '/.well-known/jwks.json');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
      expect.arrayContaining([oldKid, rot.body.data.kid]),
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

    // A new login is signed with the new key, and the data service accepts it too.
    const after = await signupUser(client(), p.publishableKey);
    expect(kidOf(after.access)).toBe(rot.body.data.kid);
    const read = await call('GET', '/api/data/notes', { key: p.publishableKey, token: after.access });
    expect(read.status).toBe(200);
    expect(read.body.data.items).toEqual([]);
  });
});
