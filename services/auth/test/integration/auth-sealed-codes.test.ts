import {
  createLogger,
  openCodes,
  type CodeEventType,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import { loadAuthConfig } from '../../src/config';
import { wireAuth, type AuthWiring } from '../../src/wiring';
import { signup } from '../../src/domain/users/signup';
import { requestPasswordReset } from '../../src/domain/codes/request-code';
import { verifyEmail } from '../../src/domain/codes/verify-email';
import { resetPassword } from '../../src/domain/codes/reset-password';
import { AUTH_TEST_ENV, MAIL_ENVELOPE_KEY, openTestStore, type TestStore } from './harness';

/**
 * Issue 12 item 1: the link token and the 8-digit code of verification and reset mails are in no
 * outbox row. NATS is unreachable here (the publisher always fails), so every event stays in the
 * outbox, as stored, on the store under test.
 */
let store: TestStore;
let wiring: AuthWiring;
const config = loadAuthConfig({
  ...AUTH_TEST_ENV,
  DATABASE_URL: 'postgres://unused/baas_auth',
  MAIL_ENVELOPE_KEY,
  CODE_RESEND_INTERVAL_SECONDS: '0',
});

beforeAll(async () => {
  store = await openTestStore('auth_sealed');
  const unreachable = { publish: () => Promise.reject(new Error('NATS is unreachable')) };
  wiring = await wireAuth(store.store, config, createLogger('auth-sealed', 'silent'), unreachable, {
    relayIntervalMs: 60_000,
  });
});
afterAll(async () => {
  for (const c of wiring.closers) await c.close();
  await store.close();
});

async function project(): Promise<ProjectId> {
  const id = wiring.projectIds.projectId();
  const now = new Date();
  const key = (prefix: string) => ({ hash: `${prefix}${id}`.padEnd(64, '0'), prefix, createdAt: now });
  await wiring.projects.insert(
    {
      id,
      name: 'sealed',
      settings: {},
      keys: { publishable: key('pk_live_'), secret: key('sk_live_') },
      createdAt: now,
      updatedAt: now,
    },
    [],
  );
  return id;
}

describe('verification and reset codes in the outbox', () => {
  it('are stored only sealed: no outbox row holds the token or the code, which still work', async () => {
    const p = await project();
    const email = `sealed-${Date.now()}@example.com`;
    await signup(wiring.deps, {
      projectId: p,
      requestId: 'it',
      publicSignups: true,
      requireEmailVerification: true,
      email,
      password: 'password-1',
      profile: {},
    });
    await requestPasswordReset(wiring.deps, p, email, 'it');
    await wiring.relay.flush().catch(() => undefined); // fails: the events stay where they are

    const rows = await store.probe.pendingEventsRaw(p);
    const codeRows = rows.filter((r) => /"auth\.(verification|password_reset)_requested"/.test(r));
    expect(codeRows).toHaveLength(2);
    const opened = codeRows.map((r) => {
      const e = JSON.parse(r) as EventEnvelope<CodeEventType>;
      expect(e.version).toBe(2);
      expect(Object.keys(e.data).sort()).toEqual(['email', 'expiresAt', 'sealed', 'userId']);
      return { type: e.type, codes: openCodes([config.MAIL_ENVELOPE_KEY], e) };
    });
    const all = rows.join('\n');
    for (const { codes } of opened) {
      expect(codes.otp).toMatch(/^[0-9]{8}$/);
      expect(codes.token.length).toBeGreaterThanOrEqual(43);
      expect(all).not.toContain(codes.otp);
      expect(all).not.toContain(codes.token);
    }
    // What was sealed is what the user gets: the codes work in their documented forms.
    const verify = opened.find((o) => o.type === 'auth.verification_requested')!.codes;
    const reset = opened.find((o) => o.type === 'auth.password_reset_requested')!.codes;
    await expect(verifyEmail(wiring.deps, p, { email, otp: verify.otp }, 'it')).resolves.toBeUndefined();
    await expect(
      resetPassword(wiring.deps, p, { email, otp: reset.otp }, 'new-password-1', {
        clientIp: null,
        requestId: 'it',
      }),
    ).resolves.toBeUndefined();
  });
});
