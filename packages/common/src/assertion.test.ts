import { SignJWT } from 'jose';
import { assertionKey, signAssertion, verifyAssertion } from './assertion';
import { trustedProjectId } from './tenancy';

const key = assertionKey('a'.repeat(43));
const other = assertionKey('b'.repeat(43));
const projectId = trustedProjectId('64b7f0c2a1b2c3d4e5f60718');

describe('gateway assertion', () => {
  it('round-trips project, key type, settings and request id', async () => {
    const settings = {
      publicSignups: false,
      requireEmailVerification: true,
      limits: { storageBytes: 1, documents: 2, mailMonthly: 3 },
    };
    const token = await signAssertion(key, 'data', {
      requestId: 'r1',
      projectId,
      keyType: 'secret',
      admin: false,
      settings,
    });
    await expect(verifyAssertion(key, 'data', token)).resolves.toEqual({
      requestId: 'r1',
      projectId,
      keyType: 'secret',
      admin: false,
      settings,
    });
  });

  it('refuses an assertion addressed to another service', async () => {
    const token = await signAssertion(key, 'storage', { requestId: 'r', admin: false });
    await expect(verifyAssertion(key, 'data', token)).rejects.toThrow();
  });

  it('refuses an assertion signed with another key', async () => {
    const token = await signAssertion(other, 'data', { requestId: 'r', admin: true });
    await expect(verifyAssertion(key, 'data', token)).rejects.toThrow();
  });

  it('refuses an unsigned (alg none) token', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'baas-assertion+jwt' })).toString(
      'base64url',
    );
    const now = Math.floor(Date.now() / 1000);
    const body = Buffer.from(
      JSON.stringify({ iss: 'baas-gateway', aud: 'data', rid: 'r', adm: true, iat: now, exp: now + 60 }),
    ).toString('base64url');
    await expect(verifyAssertion(key, 'data', `${header}.${body}.`)).rejects.toThrow();
  });

  it('refuses an expired assertion', async () => {
    const past = Math.floor(Date.now() / 1000) - 600;
    const token = await new SignJWT({ rid: 'r', adm: false })
      .setProtectedHeader({ alg: 'HS256', typ: 'baas-assertion+jwt' })
      .setIssuer('baas-gateway')
      .setAudience('data')
      .setIssuedAt(past)
      .setExpirationTime(past + 60)
      .sign(key);
    await expect(verifyAssertion(key, 'data', token)).rejects.toThrow();
  });

  it('refuses a malformed project id', async () => {
    const token = await new SignJWT({ rid: 'r', adm: false, pid: '{"$ne":1}' })
      .setProtectedHeader({ alg: 'HS256', typ: 'baas-assertion+jwt' })
      .setIssuer('baas-gateway')
      .setAudience('data')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);
    await expect(verifyAssertion(key, 'data', token)).rejects.toThrow(/project id/);
  });
});
