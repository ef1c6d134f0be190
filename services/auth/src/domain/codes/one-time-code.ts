import { randomInt } from 'node:crypto';
import type { ProjectId } from '@baas/common';
import { hmacHex, randomSecret } from '../crypto/secrets';
import type { CodePurpose, StoredCode } from '../users/user';

/**
 * A one-time code has two forms sent in the same mail: a link token (256 bits, looked up by its
 * digest: the spec's `{ token }`) and an 8-digit OTP (26 bits, only usable together with the
 * email, and counted against the attempt limit). Both digests are HMAC-SHA-256 with a server key
 * and bound to purpose and project (the OTP also to the user), so no code works elsewhere.
 */
export const OTP_DIGITS = 8;

export function tokenDigest(key: Buffer, purpose: CodePurpose, projectId: ProjectId, token: string): string {
  return hmacHex(key, `${purpose}|${projectId}|token|${token}`);
}

export function otpDigest(
  key: Buffer,
  purpose: CodePurpose,
  projectId: ProjectId,
  userId: string,
  otp: string,
): string {
  return hmacHex(key, `${purpose}|${projectId}|${userId}|otp|${otp}`);
}

export function newCode(
  key: Buffer,
  purpose: CodePurpose,
  projectId: ProjectId,
  userId: string,
  now: Date,
  ttlSeconds: number,
): { token: string; otp: string; stored: StoredCode } {
  const token = randomSecret();
  const otp = String(randomInt(0, 10 ** OTP_DIGITS)).padStart(OTP_DIGITS, '0');
  return {
    token,
    otp,
    stored: {
      tokenHash: tokenDigest(key, purpose, projectId, token),
      otpHash: otpDigest(key, purpose, projectId, userId, otp),
      attempts: 0,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
    },
  };
}
