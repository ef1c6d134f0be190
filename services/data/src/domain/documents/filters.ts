import { ObjectId } from 'mongodb';
import { errors } from '@baas/common';
import { PURGE_FIELD } from '@baas/common/mongo';
import type { Filter } from '../../ports';

/** A malformed id names no document: 404, exactly like a missing one. */
export function documentId(raw: string): ObjectId {
  if (!/^[a-fA-F0-9]{24}$/.test(raw)) throw documentNotFound();
  return new ObjectId(raw);
}

export function documentNotFound() {
  return errors.notFound('DOCUMENT_NOT_FOUND', 'Document not found');
}

/** Trashed documents are hidden unless asked for; documents awaiting purge are always hidden. */
export function visibility(includeDeleted: boolean): Filter {
  return includeDeleted ? { [PURGE_FIELD]: { $ne: true } } : { isDeleted: false };
}

/** ANDs filters without ever merging keys (a client condition can only narrow the server's). */
export function and(...filters: Filter[]): Filter {
  const parts = filters.filter((f) => Object.keys(f).length > 0);
  if (parts.length === 0) return {};
  if (parts.length === 1) return parts[0] as Filter;
  return { $and: parts };
}
