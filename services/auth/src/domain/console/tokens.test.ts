import { consoleSessionTokenHash } from '@baas/common';
import { linkTokenDigest, newConsoleToken, truncatedUserAgent, USER_AGENT_MAX } from './tokens';

describe('console tokens', () => {
  it('are 32 random bytes, base64url, never repeated', () => {
    const a = newConsoleToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(new Set(Array.from({ length: 100 }, newConsoleToken)).size).toBe(100);
  });

  it('digest link tokens by purpose: an invitation token never matches a reset code or a session', () => {
    const t = newConsoleToken();
    const invitation = linkTokenDigest('invitation', t);
    const reset = linkTokenDigest('password-reset', t);
    expect(invitation).toMatch(/^[a-f0-9]{64}$/);
    expect(reset).toMatch(/^[a-f0-9]{64}$/);
    expect(invitation).not.toBe(reset);
    expect(invitation).not.toBe(consoleSessionTokenHash(t));
    expect(linkTokenDigest('invitation', t)).toBe(invitation);
  });

  it('keeps a User-Agent of up to 256 characters whole and cuts a longer one there', () => {
    expect(truncatedUserAgent(undefined)).toBeNull();
    expect(truncatedUserAgent('')).toBeNull();
    const exact = 'u'.repeat(USER_AGENT_MAX);
    expect(truncatedUserAgent(exact)).toBe(exact);
    expect(truncatedUserAgent(`${exact}x`)).toBe(exact);
  });
});
