import { createEvent } from './events/envelope';
import { RevocationList } from './revocation-list';
import { trustedProjectId } from './tenancy';

const P = trustedProjectId('a'.repeat(24));
const OTHER = trustedProjectId('b'.repeat(24));
const WINDOW = 3_630_000;

function listAt(nowRef: { t: number }) {
  return new RevocationList(WINDOW, () => nowRef.t);
}

describe('RevocationList', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const token = (over: Partial<{ userId: string; sessionId: string; issuedAt: number }> = {}) => ({
    userId: 'u1',
    sessionId: 's1',
    issuedAt: t0 / 1000 - 60,
    ...over,
  });

  it('refuses every token of a revoked session, and only of that session and project', () => {
    const now = { t: t0 };
    const list = listAt(now);
    list.revokeSession(P, 's1', t0);
    expect(list.isRevoked(P, token())).toBe(true);
    expect(list.isRevoked(P, token({ issuedAt: t0 / 1000 + 5 }))).toBe(true);
    expect(list.isRevoked(P, token({ sessionId: 's2' }))).toBe(false);
    expect(list.isRevoked(OTHER, token())).toBe(false);
  });

  it('refuses a user’s tokens issued before the time, not those after it', () => {
    const now = { t: t0 };
    const list = listAt(now);
    list.revokeUser(P, 'u1', t0, t0);
    expect(list.isRevoked(P, token({ issuedAt: t0 / 1000 - 1 }))).toBe(true);
    expect(list.isRevoked(P, token({ issuedAt: t0 / 1000 + 1 }))).toBe(false);
    expect(list.isRevoked(P, token({ userId: 'u2' }))).toBe(false);
  });

  it('keeps an entry exactly the window long: at its end it no longer refuses, and sweep drops it', () => {
    const now = { t: t0 };
    const list = listAt(now);
    list.revokeSession(P, 's1', t0);
    list.revokeUser(P, 'u9', Infinity, t0);
    now.t = t0 + WINDOW - 1;
    expect(list.isRevoked(P, token())).toBe(true);
    expect(list.sweep()).toBe(0);
    now.t = t0 + WINDOW;
    expect(list.isRevoked(P, token())).toBe(false);
    expect(list.isRevoked(P, token({ userId: 'u9', sessionId: 'x' }))).toBe(false);
    expect(list.sweep()).toBe(2);
    expect(list.size).toBe(0);
  });

  it('ignores revocations older than the window (replayed history)', () => {
    const now = { t: t0 };
    const list = listAt(now);
    list.revokeSession(P, 's1', t0 - WINDOW);
    expect(list.size).toBe(0);
  });

  it('applies auth.session_revoked and user.deleted events; other events revoke nothing', () => {
    const now = { t: Date.now() };
    const list = listAt(now);
    expect(
      list.apply(createEvent('auth.session_revoked', P, { userId: 'u1', sessionId: 's1', reason: 'logout' })),
    ).toBe(true);
    expect(list.apply(createEvent('user.deleted', P, { userId: 'u2' }))).toBe(true);
    expect(list.apply(createEvent('user.updated', P, { userId: 'u3', changed: ['password'] }))).toBe(false);
    const iat = Math.floor(now.t / 1000);
    expect(list.isRevoked(P, { userId: 'u1', sessionId: 's1', issuedAt: iat })).toBe(true);
    // A deleted user can get no new token: all of theirs are refused, whenever issued.
    expect(list.isRevoked(P, { userId: 'u2', sessionId: 'any', issuedAt: iat + 100 })).toBe(true);
    expect(list.isRevoked(P, { userId: 'u3', sessionId: 's3', issuedAt: iat })).toBe(false);
  });
});
