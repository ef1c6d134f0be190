import { trustedProjectId, type AssertionClaims, type ServiceName } from '@baas/common';
import type { ResolvedProject } from '../ports';
import { AssertionIssuer } from './assertion-issuer';

const settings = {
  publicSignups: true,
  requireEmailVerification: false,
  limits: { storageBytes: 1, documents: 1, mailMonthly: 1 },
};
const project = (): ResolvedProject => ({
  projectId: trustedProjectId('64b7f0c2a1b2c3d4e5f60718'),
  keyType: 'secret',
  allowedOrigins: [],
  settings,
});

function counting() {
  const calls: Array<[ServiceName, AssertionClaims]> = [];
  const issuer = new AssertionIssuer(async (aud, claims) => {
    calls.push([aud, claims]);
    return `token-${calls.length}`;
  }, 30_000);
  return { issuer, calls };
}

describe('AssertionIssuer', () => {
  it('signs once per caller and audience and reuses the token', async () => {
    const { issuer, calls } = counting();
    const p = project();
    const claims: AssertionClaims = { admin: false, projectId: p.projectId, keyType: 'secret', settings };
    const a = await Promise.all([issuer.issue('data', claims, p), issuer.issue('data', claims, p)]);
    expect(a).toEqual(['token-1', 'token-1']);
    expect(await issuer.issue('storage', claims, p)).toBe('token-2');
    expect(calls).toHaveLength(2);
  });

  it('signs again for a new project entry (changed settings), another client address or another key type', async () => {
    const { issuer, calls } = counting();
    const p1 = project();
    const base: AssertionClaims = { admin: false, projectId: p1.projectId, keyType: 'secret', settings };
    await issuer.issue('data', base, p1);
    await issuer.issue('data', base, project());
    await issuer.issue('data', { ...base, clientIp: '203.0.113.1' }, p1);
    await issuer.issue('data', { ...base, keyType: 'publishable' }, p1);
    await issuer.issue('data', { admin: true }, undefined);
    expect(calls).toHaveLength(5);
  });

  it("never hands one caller's admin assertion to another: the token, each console account, each scope", async () => {
    const { issuer, calls } = counting();
    const acct = { id: 'a1', email: 'a@example.com', platformAdmin: false };
    await issuer.issue('auth', { admin: true, clientIp: '203.0.113.1' });
    await issuer.issue('auth', { admin: true, clientIp: '203.0.113.1', account: acct });
    await issuer.issue('auth', { admin: true, clientIp: '203.0.113.1', account: { ...acct, id: 'a2' } });
    await issuer.issue('auth', {
      admin: true,
      clientIp: '203.0.113.1',
      account: { ...acct, platformAdmin: true },
    });
    await issuer.issue('auth', { admin: true, clientIp: '203.0.113.1', account: acct, scope: [] });
    await issuer.issue('auth', {
      admin: true,
      clientIp: '203.0.113.1',
      account: acct,
      scope: ['64b7f0c2a1b2c3d4e5f60718'],
    });
    expect(calls).toHaveLength(6);
    expect(calls.map(([, c]) => c.account?.id)).toEqual([undefined, 'a1', 'a2', 'a1', 'a1', 'a1']);
    // the same caller again: reused
    await issuer.issue('auth', { admin: true, clientIp: '203.0.113.1', account: acct });
    expect(calls).toHaveLength(6);
  });

  it('signs again once the reuse period is over', async () => {
    const calls: string[] = [];
    const issuer = new AssertionIssuer(async (aud) => {
      calls.push(aud);
      return 't';
    }, 20);
    await issuer.issue('auth', { admin: true });
    await issuer.issue('auth', { admin: true });
    await new Promise((r) => setTimeout(r, 40));
    await issuer.issue('auth', { admin: true });
    expect(calls).toHaveLength(2);
  });

  it('does not remember a failed signature', async () => {
    let fail = true;
    const issuer = new AssertionIssuer(async () => {
      if (fail) throw new Error('no key');
      return 'ok';
    });
    await expect(issuer.issue('data', { admin: true })).rejects.toThrow('no key');
    fail = false;
    await expect(issuer.issue('data', { admin: true })).resolves.toBe('ok');
  });
});
