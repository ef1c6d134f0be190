import { createHmac } from 'node:crypto';
import { randomSecret, sha256Hex } from '../crypto/secrets';

/**
 * Refresh tokens are opaque 256-bit strings. Only their SHA-256 is stored (a fast hash is enough
 * for 256 random bits). A token's successor is derived from the token with a server key
 * (HMAC-SHA-256): every concurrent or retried refresh of one token computes the same single
 * successor, so the grace window can hand back "the same child" without storing any plaintext.
 */
const PREFIX = 'rt_';

export function newRootRefreshToken(): string {
  return PREFIX + randomSecret();
}

export function successorOf(derivationKey: Buffer, token: string): string {
  return (
    PREFIX + createHmac('sha256', derivationKey).update(`successor:${token}`, 'utf8').digest('base64url')
  );
}

export function refreshTokenHash(token: string): string {
  return sha256Hex(token);
}

/** Cheap shape check before any database lookup. */
export function looksLikeRefreshToken(token: string): boolean {
  return /^rt_[A-Za-z0-9_-]{43}$/.test(token);
}
