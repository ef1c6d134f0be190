import { randomBytes } from 'node:crypto';

/** A document's id: 24 lowercase hex digits, as the contract says, generated here (not by a driver). */
export type DocumentId = string & { readonly __brand: 'DocumentId' };

const HEX24 = /^[a-f0-9]{24}$/;
const PROCESS_RANDOM = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * ObjectId's layout (4-byte seconds, 5 random bytes per process, 3-byte counter), so ids sort
 * roughly by creation on every store and read naturally to MongoDB tools.
 */
export function newDocumentId(now = Date.now()): DocumentId {
  const b = Buffer.alloc(12);
  b.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  PROCESS_RANDOM.copy(b, 4);
  counter = (counter + 1) % 0xffffff;
  b.writeUIntBE(counter, 9, 3);
  return b.toString('hex') as DocumentId;
}

/** An id from a path or a cursor; undefined when it cannot name a document. */
export function parseDocumentId(raw: string): DocumentId | undefined {
  const lower = raw.toLowerCase();
  return HEX24.test(lower) ? (lower as DocumentId) : undefined;
}

export function isDocumentId(v: unknown): v is DocumentId {
  return typeof v === 'string' && HEX24.test(v);
}
