import { randomBytes } from 'node:crypto';
import { looksLikeRefreshToken, newRootRefreshToken, refreshTokenHash, successorOf } from './refresh-tokens';

describe('refresh tokens', () => {
  const key = randomBytes(32);
  it('are 256-bit opaque strings with a recognisable prefix', () => {
    const t = newRootRefreshToken();
    expect(looksLikeRefreshToken(t)).toBe(true);
    expect(Buffer.from(t.slice(3), 'base64url')).toHaveLength(32);
    expect(newRootRefreshToken()).not.toBe(t);
  });
  it('have one deterministic successor per token and key, itself a valid token', () => {
    const t = newRootRefreshToken();
    expect(successorOf(key, t)).toBe(successorOf(key, t));
    expect(successorOf(randomBytes(32), t)).not.toBe(successorOf(key, t));
    expect(looksLikeRefreshToken(successorOf(key, t))).toBe(true);
    expect(successorOf(key, successorOf(key, t))).not.toBe(successorOf(key, t));
  });
  it('are stored as SHA-256 hex', () => {
    expect(refreshTokenHash('rt_x')).toMatch(/^[a-f0-9]{64}$/);
  });
});
