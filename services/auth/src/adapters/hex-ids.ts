import { randomBytes } from 'node:crypto';
import { trustedProjectId } from '@baas/common';
import type { IdGenerator } from '../ports';

/**
 * 24 hex digits shaped like a MongoDB ObjectId (4 bytes of seconds, then 8 random bytes), so ids
 * look the same whichever store made them, without loading the MongoDB driver. Roughly ordered by
 * creation time; 64 random bits make a collision within one second negligible.
 */
export function newHexId(now: number = Date.now()): string {
  const b = Buffer.alloc(12);
  b.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  randomBytes(8).copy(b, 4);
  return b.toString('hex');
}

export const hexIdGenerator: IdGenerator = { projectId: () => trustedProjectId(newHexId()) };
