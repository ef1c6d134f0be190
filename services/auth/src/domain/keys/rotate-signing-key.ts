import { randomUUID } from 'node:crypto';
import type { AuditSource } from '@baas/common';
import type { AuditLog } from '../../ports';
import type { KeyStore } from './key-store';

/**
 * Operator use case: sign new access tokens with a fresh key. The key is published at once and
 * signs from `signsFrom` on (SIGNING_KEY_PUBLISH_AHEAD_MS later, so every verifier can fetch it
 * before it meets a token signed with it). Tokens signed before keep verifying (their key stays
 * in the JWKS until it has signed nothing for longer than a token lives), so nobody is logged
 * out. Other auth replicas pick the new key up on their next reload.
 *
 * The rotation is platform-wide (no project, so no project event to carry it) and the log is
 * this service's own: the entry is written directly, right after the new key is stored. Should
 * that write fail, the request fails and the operator sees it (the key is rotated either way).
 */
export async function rotateSigningKey(
  keys: KeyStore,
  audit: AuditLog,
  source: AuditSource,
): Promise<{ kid: string; signsFrom: string; publishedKids: string[] }> {
  const { kid, signsFrom } = await keys.rotate();
  await audit.append({
    id: randomUUID(),
    projectId: null,
    at: new Date(),
    action: 'signing_key.rotated',
    actor: source.actor,
    target: { type: 'signing-key', id: kid },
    requestId: source.requestId,
    clientIp: source.clientIp,
    details: null,
  });
  return {
    kid,
    signsFrom: signsFrom.toISOString(),
    publishedKids: keys.jwks().keys.map((k) => String(k.kid)),
  };
}
