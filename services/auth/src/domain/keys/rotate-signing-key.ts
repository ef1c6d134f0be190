import type { KeyStore } from './key-store';

/**
 * Operator use case: sign new access tokens with a fresh key. Tokens signed before keep
 * verifying (their key stays in the JWKS until it has signed nothing for longer than a token
 * lives), so nobody is logged out. Other auth replicas pick the new key up on their next reload.
 */
export async function rotateSigningKey(keys: KeyStore): Promise<{ kid: string; publishedKids: string[] }> {
  const kid = await keys.rotate();
  return { kid, publishedKids: keys.jwks().keys.map((k) => String(k.kid)) };
}
