import { createHash, randomBytes } from 'node:crypto';
import type { KeyType } from '@baas/common';
import type { StoredKey } from './project';

const PREFIX: Record<KeyType, string> = { publishable: 'pk_live_', secret: 'sk_live_' };
/** Characters of the key kept in clear so an operator can recognise it; the rest is only hashed. */
const VISIBLE_CHARS = 12;

/** 32 random bytes (256 bits) from the CSPRNG, base64url, behind the type prefix. */
export function generateApiKey(type: KeyType): { plaintext: string; stored: StoredKey } {
  const plaintext = PREFIX[type] + randomBytes(32).toString('base64url');
  return {
    plaintext,
    stored: { hash: hashApiKey(plaintext), prefix: plaintext.slice(0, VISIBLE_CHARS), createdAt: new Date() },
  };
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

export function keyTypeOf(plaintext: string): KeyType | undefined {
  if (plaintext.startsWith(PREFIX.publishable)) return 'publishable';
  if (plaintext.startsWith(PREFIX.secret)) return 'secret';
  return undefined;
}
