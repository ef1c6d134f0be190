import { ObjectId } from 'mongodb';
import { errors } from '@baas/common';
import type { Filter } from '../../ports';

/** An opaque position in the (createdAt, _id) order: base64url of the last item's sort key. */
export interface CursorPosition {
  createdAt: Date;
  id: ObjectId;
}

export function encodeCursor(p: CursorPosition): string {
  return Buffer.from(JSON.stringify({ c: p.createdAt.getTime(), i: p.id.toHexString() })).toString(
    'base64url',
  );
}

export function decodeCursor(raw: string): CursorPosition {
  try {
    if (raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('shape');
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (
      typeof v.c !== 'number' ||
      !Number.isSafeInteger(v.c) ||
      typeof v.i !== 'string' ||
      !/^[a-f0-9]{24}$/.test(v.i)
    )
      throw new Error('fields');
    return { createdAt: new Date(v.c), id: new ObjectId(v.i) };
  } catch {
    throw errors.badRequest('INVALID_CURSOR', 'Invalid cursor');
  }
}

/** Documents strictly after the position in the given direction (keyset pagination). */
export function afterCursor(p: CursorPosition, direction: 1 | -1): Filter {
  const op = direction === 1 ? '$gt' : '$lt';
  return { $or: [{ createdAt: { [op]: p.createdAt } }, { createdAt: p.createdAt, _id: { [op]: p.id } }] };
}
