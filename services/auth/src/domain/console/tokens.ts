import { createHash, randomBytes } from 'node:crypto';

/**
 * The console's secrets: session tokens, invitation and reset link tokens, each 32 random bytes
 * (base64url) shown once and stored only as a SHA-256 digest. A session token's digest is plain
 * SHA-256 (consoleSessionTokenHash, which the gateway computes too); link tokens are digested with
 * their purpose, so one kind can never be looked up as another.
 */
export function newConsoleToken(): string {
  return randomBytes(32).toString('base64url');
}

export type LinkTokenPurpose = 'invitation' | 'password-reset';

export function linkTokenDigest(purpose: LinkTokenPurpose, token: string): string {
  return createHash('sha256').update(`baas-console-${purpose}\0${token}`, 'utf8').digest('hex');
}

/** What a session keeps of the client's User-Agent (informational, bounded). */
export const USER_AGENT_MAX = 256;

export function truncatedUserAgent(ua: string | undefined): string | null {
  if (!ua) return null;
  return ua.length > USER_AGENT_MAX ? ua.slice(0, USER_AGENT_MAX) : ua;
}
