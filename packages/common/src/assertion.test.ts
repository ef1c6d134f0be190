import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { z } from 'zod';
import {
  assertionPrivateKey,
  assertionPrivateKeySchema,
  assertionPublicKey,
  assertionPublicKeySchema,
  assertionVerificationKeys,
  generateAssertionKeyPair,
  requireGatewayAssertion,
  signAssertion,
  verifyAssertion,
} from './assertion';
import { loadConfig, serviceEnvShape } from './config';
import { trustedProjectId } from './tenancy';

const gateway = generateAssertionKeyPair();
/** What the gateway signs with. */
const key = gateway.privateKey;
/** What every service verifies with. */
const pub = gateway.publicKey;
/** Another Ed25519 pair, e.g. one a compromised service made up. */
const other = generateAssertionKeyPair().privateKey;
const projectId = trustedProjectId('64b7f0c2a1b2c3d4e5f60718');

describe('gateway assertion', () => {
  it('round-trips project, key type and settings, and leaves the request id out (it travels in x-request-id)', async () => {
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
    await expect(verifyAssertion(pub, 'data', token)).resolves.toEqual({
      projectId,
      keyType: 'secret',
      admin: false,
      settings,
      expiresAt: expect.any(Number),
    });
  });

  it("carries the client's address for the audit log, and leaves it out when unknown", async () => {
    const withIp = await signAssertion(key, 'auth', { requestId: 'r', admin: true, clientIp: '203.0.113.7' });
    await expect(verifyAssertion(pub, 'auth', withIp)).resolves.toMatchObject({ clientIp: '203.0.113.7' });
    const without = await verifyAssertion(
      pub,
      'auth',
      await signAssertion(key, 'auth', { requestId: 'r', admin: true }),
    );
    expect(without).not.toHaveProperty('clientIp');
  });

  it('refuses an assertion addressed to another service', async () => {
    const token = await signAssertion(key, 'storage', { requestId: 'r', admin: false });
    await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow();
  });

  it('refuses an assertion signed with another key', async () => {
    const token = await signAssertion(other, 'data', { requestId: 'r', admin: true });
    await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow();
  });

  it('refuses an unsigned (alg none) token', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'baas-assertion+jwt' })).toString(
      'base64url',
    );
    const now = Math.floor(Date.now() / 1000);
    const body = Buffer.from(
      JSON.stringify({ iss: 'baas-gateway', aud: 'data', rid: 'r', adm: true, iat: now, exp: now + 60 }),
    ).toString('base64url');
    await expect(verifyAssertion(pub, 'data', `${header}.${body}.`)).rejects.toThrow();
  });

  it('refuses an expired assertion', async () => {
    const past = Math.floor(Date.now() / 1000) - 600;
    const token = await new SignJWT({ rid: 'r', adm: false })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'baas-assertion+jwt' })
      .setIssuer('baas-gateway')
      .setAudience('data')
      .setIssuedAt(past)
      .setExpirationTime(past + 60)
      .sign(key);
    await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow(/exp/);
  });

  it('refuses a malformed project id', async () => {
    const token = await new SignJWT({ rid: 'r', adm: false, pid: '{"$ne":1}' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'baas-assertion+jwt' })
      .setIssuer('baas-gateway')
      .setAudience('data')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);
    await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow(/project id/);
  });
});

describe('gateway assertion: only the gateway can sign (issue 12 item 2)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const forged = (alg: string) =>
    new SignJWT({ adm: true, pid: projectId, kt: 'secret' })
      .setProtectedHeader({ alg, typ: 'baas-assertion+jwt' })
      .setIssuer('baas-gateway')
      .setAudience('data')
      .setIssuedAt(now())
      .setExpirationTime(now() + 60);

  it('refuses an HS256 token signed with the old shared secret (INTERNAL_ASSERTION_SECRET)', async () => {
    const oldSharedSecret = new TextEncoder().encode('whuOD-aAON-X4JCUgATg-dISQYOoE_jUGBJPi_ThXAw');
    const token = await forged('HS256').sign(oldSharedSecret);
    await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow(/alg/);
  });

  it('refuses an HS256 token keyed with the public key itself (algorithm confusion)', async () => {
    for (const material of [
      gateway.publicKeyPem,
      gateway.publicKeyPem.trim(),
      pub.export({ type: 'spki', format: 'der' }).toString('base64'),
    ]) {
      const token = await forged('HS256').sign(new TextEncoder().encode(material));
      await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow(/alg/);
    }
    const raw = await forged('HS256').sign(new Uint8Array(pub.export({ type: 'spki', format: 'der' })));
    await expect(verifyAssertion(pub, 'data', raw)).rejects.toThrow(/alg/);
  });

  it('a service holding only the public key cannot sign at all', async () => {
    await expect(signAssertion(pub, 'data', { admin: true })).rejects.toThrow();
    await expect(forged('EdDSA').sign(pub)).rejects.toThrow();
  });

  it('refuses a token a service signed with an Ed25519 key of its own', async () => {
    const token = await forged('EdDSA').sign(other);
    await expect(verifyAssertion(pub, 'data', token)).rejects.toThrow(/signature/);
  });

  it('refuses tokens of another algorithm family (RS256, ES256) whatever their key', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    await expect(verifyAssertion(pub, 'data', await forged('RS256').sign(rsa))).rejects.toThrow(/alg/);
    await expect(verifyAssertion(pub, 'data', await forged('ES256').sign(ec))).rejects.toThrow(/alg/);
  });
});

describe('assertion keys in the configuration', () => {
  const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();

  it('reads the PEM with real newlines or with \\n escapes (one line in an env file)', () => {
    const escaped = (pem: string) => pem.trim().replace(/\n/g, '\\n');
    expect(escaped(gateway.publicKeyPem)).not.toContain('\n');
    expect(assertionPublicKey(escaped(gateway.publicKeyPem)).equals(pub)).toBe(true);
    expect(assertionPublicKey(gateway.publicKeyPem).equals(pub)).toBe(true);
    expect(assertionPrivateKey(escaped(gateway.privateKeyPem)).equals(key)).toBe(true);
  });

  it('refuses a private key where the public key belongs: a service never holds the signing key', () => {
    expect(() => assertionPublicKey(gateway.privateKeyPem)).toThrow(/private key/);
  });

  it('refuses a public key as the signing key, and keys that are not Ed25519', () => {
    expect(() => assertionPrivateKey(gateway.publicKeyPem)).toThrow(/PEM private key/);
    expect(() => assertionPublicKey(rsaPem)).toThrow(/not Ed25519/);
    expect(() => assertionPublicKey('not a key')).toThrow(/PEM public key/);
  });

  it('takes either key from a mounted file (NAME_FILE) and lists a bad one among the problems', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assertion-keys-'));
    try {
      writeFileSync(join(dir, 'public.pem'), gateway.publicKeyPem);
      writeFileSync(join(dir, 'private.pem'), gateway.privateKeyPem);
      const schema = z.object({
        GATEWAY_ASSERTION_PUBLIC_KEY: assertionPublicKeySchema,
        GATEWAY_ASSERTION_PRIVATE_KEY: assertionPrivateKeySchema,
      });
      const config = loadConfig(schema, {
        GATEWAY_ASSERTION_PUBLIC_KEY_FILE: join(dir, 'public.pem'),
        GATEWAY_ASSERTION_PRIVATE_KEY_FILE: join(dir, 'private.pem'),
      });
      expect(config.GATEWAY_ASSERTION_PUBLIC_KEY.equals(pub)).toBe(true);
      expect(config.GATEWAY_ASSERTION_PRIVATE_KEY.equals(key)).toBe(true);
      expect(() =>
        loadConfig(schema, {
          GATEWAY_ASSERTION_PUBLIC_KEY: gateway.privateKeyPem,
          GATEWAY_ASSERTION_PRIVATE_KEY_FILE: join(dir, 'public.pem'),
        }),
      ).toThrow(/GATEWAY_ASSERTION_PUBLIC_KEY: a private key[\s\S]*GATEWAY_ASSERTION_PRIVATE_KEY: not a PEM/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a service’s configuration', () => {
  const schema = z.object(serviceEnvShape);

  it('takes the public key, and refuses to start when it is handed the signing key too', () => {
    expect(
      loadConfig(schema, {
        GATEWAY_ASSERTION_PUBLIC_KEY: gateway.publicKeyPem,
      }).GATEWAY_ASSERTION_PUBLIC_KEY.equals(pub),
    ).toBe(true);
    expect(() =>
      loadConfig(schema, {
        GATEWAY_ASSERTION_PUBLIC_KEY: gateway.publicKeyPem,
        GATEWAY_ASSERTION_PRIVATE_KEY: gateway.privateKeyPem,
      }),
    ).toThrow(/GATEWAY_ASSERTION_PRIVATE_KEY: the gateway's signing key/);
    expect(() => loadConfig(schema, {})).toThrow(/GATEWAY_ASSERTION_PUBLIC_KEY/);
  });
});

describe('requireGatewayAssertion', () => {
  function run(mw: ReturnType<typeof requireGatewayAssertion>, token: string | undefined, id: string) {
    const req = { id, header: (h: string) => (h === 'x-gateway-assertion' ? token : undefined) } as never;
    return new Promise<{ err?: unknown; req: { assertion?: unknown } }>((resolve) => {
      void mw(req, {} as never, (err?: unknown) => resolve({ err, req }));
    });
  }

  it("gives each request its own id with the (once verified) caller's claims", async () => {
    const mw = requireGatewayAssertion(pub, 'data');
    const token = await signAssertion(key, 'data', { admin: false, projectId, keyType: 'secret' });
    const a = await run(mw, token, 'req-a');
    const b = await run(mw, token, 'req-b');
    expect(a.err).toBeUndefined();
    expect(a.req.assertion).toEqual({ admin: false, projectId, keyType: 'secret', requestId: 'req-a' });
    expect(b.req.assertion).toEqual({ admin: false, projectId, keyType: 'secret', requestId: 'req-b' });
  });

  it('refuses a token once it has expired, even after it was verified and cached', async () => {
    jest.useFakeTimers({ now: Date.now(), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const mw = requireGatewayAssertion(pub, 'data');
      const token = await signAssertion(key, 'data', { admin: true });
      expect((await run(mw, token, 'r1')).err).toBeUndefined();
      jest.setSystemTime(Date.now() + 70_000); // past exp and the 5 s clock tolerance
      expect((await run(mw, token, 'r2')).err).toMatchObject({
        status: 401,
        code: 'GATEWAY_ASSERTION_INVALID',
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses a request without an assertion, or with a token signed by another key', async () => {
    const mw = requireGatewayAssertion(pub, 'data');
    expect((await run(mw, undefined, 'r')).err).toMatchObject({ code: 'GATEWAY_ASSERTION_REQUIRED' });
    const forged = await signAssertion(other, 'data', { admin: true });
    expect((await run(mw, forged, 'r')).err).toMatchObject({ code: 'GATEWAY_ASSERTION_INVALID' });
  });

  it('during a rotation accepts the new and the previous gateway key, and still no other', async () => {
    const next = generateAssertionKeyPair();
    const config = loadConfig(z.object(serviceEnvShape), {
      GATEWAY_ASSERTION_PUBLIC_KEY: next.publicKeyPem,
      GATEWAY_ASSERTION_PREVIOUS_PUBLIC_KEY: gateway.publicKeyPem,
    });
    const mw = requireGatewayAssertion(assertionVerificationKeys(config), 'data');
    const byOldGateway = await signAssertion(key, 'data', { admin: false, projectId, keyType: 'secret' });
    const byNewGateway = await signAssertion(next.privateKey, 'data', { admin: true });
    expect((await run(mw, byOldGateway, 'r1')).err).toBeUndefined();
    expect((await run(mw, byNewGateway, 'r2')).err).toBeUndefined();
    const forged = await signAssertion(other, 'data', { admin: true });
    expect((await run(mw, forged, 'r3')).err).toMatchObject({ code: 'GATEWAY_ASSERTION_INVALID' });
    // without the previous key (the rotation is over), the old gateway's assertions are refused
    const after = requireGatewayAssertion(
      assertionVerificationKeys({ GATEWAY_ASSERTION_PUBLIC_KEY: next.publicKey }),
      'data',
    );
    expect((await run(after, byOldGateway, 'r4')).err).toMatchObject({ code: 'GATEWAY_ASSERTION_INVALID' });
    // an assertion for another service is refused whichever key signed it
    const wrongAudience = await signAssertion(key, 'storage', { admin: true });
    expect((await run(mw, wrongAudience, 'r5')).err).toMatchObject({ code: 'GATEWAY_ASSERTION_INVALID' });
  });
});

describe('gateway assertion: a console account and its scope', () => {
  const account = { id: '64b7f0c2a1b2c3d4e5f60719', email: 'a@example.com', platformAdmin: false };

  it('round-trips the account and the scope a platform-wide list is filtered to', async () => {
    const token = await signAssertion(key, 'auth', { admin: true, account, scope: [projectId] });
    const claims = await verifyAssertion(pub, 'auth', token);
    expect(claims).toMatchObject({ admin: true, account, scope: [projectId] });
  });

  it('refuses a malformed account or scope, even signed by the gateway', async () => {
    const sign = (payload: Record<string, unknown>) =>
      new SignJWT({ adm: true, ...payload })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'baas-assertion+jwt' })
        .setIssuer('baas-gateway')
        .setAudience('auth')
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(key);
    for (const bad of [
      { acct: 'someone' },
      { acct: { ...account, platformAdmin: 'yes' } },
      { acct: { email: account.email, platformAdmin: true } },
      { scp: 'not-a-list' },
      { scp: ['not-an-id'] },
    ])
      await expect(verifyAssertion(pub, 'auth', await sign(bad))).rejects.toThrow(/malformed/);
  });
});
