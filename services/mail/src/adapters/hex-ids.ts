import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '../ports';

/**
 * A 24-hex id shaped like a MongoDB ObjectId (seconds since the epoch, then 8 random bytes), made
 * without the MongoDB driver: message and template ids look the same on either store, and the
 * send API's `templateId` rule (24 hex characters) holds for both.
 */
export function newHexId(now: number = Date.now()): string {
  const id = randomBytes(12);
  id.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  return id.toString('hex');
}

export const hexIdGenerator: IdGenerator = { messageId: () => newHexId() };
