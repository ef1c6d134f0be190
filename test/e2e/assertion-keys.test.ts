import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import {
  assertionPrivateKey,
  assertionPublicKey,
  generateAssertionKeyPair,
  signAssertion,
  type ServiceName,
} from '@baas/common';
import { stackEnv, stackSecret } from '../support/stack-env';
import { freePort, ServiceProcess } from '../support/service-process';

/**
 * Issue 12 item 2: only the gateway can sign an assertion the services accept. Each service is
 * called directly (bypassing the gateway), as an attacker inside the network or a compromised
 * service would: a token signed with HS256 (the old shared secret's algorithm), one keyed with
 * the public key every service holds, and one signed with an Ed25519 key of the caller's own are
 * all refused; the same call signed with the gateway's key passes the assertion check (and gets
 * the 404 of an unknown path). Then: which process got which secret, and auth refusing to start
 * with AUTH_SECRET missing or equal to another secret.
 */
const ROOT = join(__dirname, '..', '..');
const env = stackEnv();
const VERIFIERS = ['auth', 'data', 'storage', 'mail'] as const;
const urlOf = (s: (typeof VERIFIERS)[number]) => env[`${s.toUpperCase()}_URL`] ?? '';

async function callWith(base: string, assertion: string) {
  const r = await fetch(`${base}/assertion-probe-${randomBytes(4).toString('hex')}`, {
    headers: { 'x-gateway-assertion': assertion },
  });
  return { status: r.status, body: (await r.json()) as { code?: string } };
}

const forged = (audience: ServiceName, alg: string) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ adm: true })
    .setProtectedHeader({ alg, typ: 'baas-assertion+jwt' })
    .setIssuer('baas-gateway')
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 60);
};

describe.each(VERIFIERS)('%s accepts only assertions the gateway signed', (service) => {
  const base = urlOf(service);

  it('accepts the gateway’s signature (the check passes; the unknown path is a 404)', async () => {
    const key = assertionPrivateKey(stackSecret('GATEWAY_ASSERTION_PRIVATE_KEY'));
    const r = await callWith(base, await signAssertion(key, service, { admin: true }));
    expect(r.status).toBe(404);
  });

  it('refuses HS256 with a shared secret, the old INTERNAL_ASSERTION_SECRET’s algorithm', async () => {
    // on a stack from before, AUTH_SECRET is the value INTERNAL_ASSERTION_SECRET had
    for (const secret of [stackSecret('AUTH_SECRET'), randomBytes(32).toString('base64url')]) {
      const token = await forged(service, 'HS256').sign(new TextEncoder().encode(secret));
      const r = await callWith(base, token);
      expect([r.status, r.body.code]).toEqual([401, 'GATEWAY_ASSERTION_INVALID']);
    }
  });

  it('refuses HS256 keyed with the public key every service holds', async () => {
    const pem = stackSecret('GATEWAY_ASSERTION_PUBLIC_KEY').replace(/\\n/g, '\n');
    for (const material of [pem, pem.trim(), stackSecret('GATEWAY_ASSERTION_PUBLIC_KEY')]) {
      const token = await forged(service, 'HS256').sign(new TextEncoder().encode(material));
      expect((await callWith(base, token)).status).toBe(401);
    }
  });

  it('refuses an assertion a service signed with an Ed25519 key of its own', async () => {
    const own = generateAssertionKeyPair().privateKey;
    const r = await callWith(base, await signAssertion(own, service, { admin: true }));
    expect([r.status, r.body.code]).toEqual([401, 'GATEWAY_ASSERTION_INVALID']);
  });
});

describe('which process holds which secret', () => {
  it('.stack/env carries the public key only: neither the signing key nor AUTH_SECRET', () => {
    const text = readFileSync(join(ROOT, '.stack', 'env'), 'utf8');
    expect(text).not.toMatch(/^GATEWAY_ASSERTION_PRIVATE_KEY=/m);
    expect(text).not.toMatch(/^AUTH_SECRET=/m);
    expect(text).not.toContain(stackSecret('AUTH_SECRET'));
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toMatch(/^INTERNAL_ASSERTION_SECRET=/m);
    const publicKey = assertionPublicKey(env.GATEWAY_ASSERTION_PUBLIC_KEY ?? '');
    expect(publicKey.equals(assertionPublicKey(stackSecret('GATEWAY_ASSERTION_PUBLIC_KEY')))).toBe(true);
  });

  /** A stack service's environment, as the kernel holds it (native mode: processes we started). */
  function environOf(service: string): Record<string, string> | undefined {
    const pidFile = join(ROOT, '.stack', 'pids', `${service}.pid`);
    if (!existsSync(pidFile)) return undefined;
    const { pid } = JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number };
    try {
      const raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
      return Object.fromEntries(
        raw
          .split('\0')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
    } catch {
      return undefined;
    }
  }

  it('native stack: the signing key and the admin token reach the gateway only, AUTH_SECRET auth only', () => {
    const mode = readFileSync(join(ROOT, '.stack', 'mode'), 'utf8').trim();
    if (mode !== 'native') {
      console.log('docker mode: docker-compose.yml is checked by test/unit/deployment-manifest.test.ts');
      return;
    }
    const services = ['auth', 'data', 'storage', 'mail', 'janitor', 'gateway'];
    const environs = Object.fromEntries(services.map((s) => [s, environOf(s)]));
    for (const [service, e] of Object.entries(environs)) {
      if (!e) throw new Error(`cannot read the environment of the stack's ${service} process`);
      const holds = (name: string) => e[name] !== undefined || e[`${name}_FILE`] !== undefined;
      expect([service, holds('GATEWAY_ASSERTION_PRIVATE_KEY')]).toEqual([service, service === 'gateway']);
      expect([service, holds('PLATFORM_ADMIN_TOKEN')]).toEqual([service, service === 'gateway']);
      expect([service, holds('AUTH_SECRET')]).toEqual([service, service === 'auth']);
      expect([service, holds('GATEWAY_ASSERTION_PUBLIC_KEY')]).toEqual([
        service,
        (VERIFIERS as readonly string[]).includes(service),
      ]);
      expect([service, holds('INTERNAL_ASSERTION_SECRET')]).toEqual([service, false]);
      // no other variable carries a value equal to the signing key or AUTH_SECRET either
      const values = Object.entries(e).filter(
        ([k]) => k !== 'GATEWAY_ASSERTION_PRIVATE_KEY' && k !== 'AUTH_SECRET',
      );
      for (const [k, v] of values) {
        expect([service, k, v === stackSecret('AUTH_SECRET')]).toEqual([service, k, false]);
        expect([service, k, v.includes('PRIVATE KEY')]).toEqual([service, k, false]);
      }
    }
  });
});

describe('auth refuses to start without a secret of its own', () => {
  async function startAuth(extra: Record<string, string>): Promise<string> {
    const port = await freePort();
    const auth = new ServiceProcess('auth', port, extra);
    try {
      await auth.start();
    } catch (e) {
      const log = readFileSync(join(ROOT, '.stack', 'logs', `test-auth-${port}.log`), 'utf8');
      return `${(e as Error).message}\n${log}`;
    } finally {
      await auth.stop();
    }
    return 'started';
  }

  it('exits naming AUTH_SECRET when it is missing', async () => {
    const out = await startAuth({ AUTH_SECRET: '' });
    expect(out).toMatch(/auth exited with 1/);
    expect(out).toMatch(/AUTH_SECRET: /);
  }, 30_000);

  it('exits naming the other variable when AUTH_SECRET equals another secret', async () => {
    const out = await startAuth({ AUTH_SECRET: stackSecret('MAIL_ENVELOPE_KEY') });
    expect(out).toMatch(/auth exited with 1/);
    expect(out).toContain('AUTH_SECRET: must differ from every other secret (it equals MAIL_ENVELOPE_KEY)');
  }, 30_000);
});
