import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Independent keys derived from the one configured secret (HKDF-SHA-256), one per purpose, so a
 * digest made for one use can never be replayed as another.
 */
export interface SecretKeys {
  /** HMAC key for one-time code and link-token digests. */
  codes: Buffer;
  /** HMAC key that derives a refresh token's successor from the token itself. */
  refreshDerivation: Buffer;
  /** AES-256-GCM key wrapping the signing keys' private halves in the database. */
  signingKeyWrap: Buffer;
}

/**
 * The keys of AUTH_SECRET, and during a rotation those of AUTH_SECRET_PREVIOUS: new codes, tokens
 * and signing keys are always made with the current ones; what the previous ones made is still
 * accepted until the previous secret is removed.
 */
export interface AuthKeys extends SecretKeys {
  previous?: SecretKeys;
}

function deriveKeys(secret: string): SecretKeys {
  const ikm = Buffer.from(secret, 'utf8');
  const derive = (label: string) =>
    Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), `baas-auth/${label}/v1`, 32));
  return {
    codes: derive('codes'),
    refreshDerivation: derive('refresh-derivation'),
    signingKeyWrap: derive('signing-key-wrap'),
  };
}

export function deriveAuthKeys(secret: string, previous?: string): AuthKeys {
  return previous ? { ...deriveKeys(secret), previous: deriveKeys(previous) } : deriveKeys(secret);
}

/** The current keys, then the previous ones when a rotation is under way. */
export function keyGenerations(keys: AuthKeys): SecretKeys[] {
  return keys.previous ? [keys, keys.previous] : [keys];
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

export function hmacHex(key: Buffer, s: string): string {
  return createHmac('sha256', key).update(s, 'utf8').digest('hex');
}

/** Compares two hex digests of equal length in constant time (false when lengths differ). */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** 256 bits from the CSPRNG, base64url. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}
