import { ObjectId, type Document } from 'mongodb';
import { PURGE_FIELD } from '@baas/common/mongo';
import type { StoredDoc } from '../../ports';
import type { DocumentId } from '../../domain/documents/document-id';
import type { Condition, Keyset, SortKey, Value } from '../../domain/documents/query';

/** `_id` is a 24-hex string in the domain and an ObjectId in MongoDB. */
function dbValue(field: string, v: unknown): unknown {
  return field === '_id' && typeof v === 'string' ? new ObjectId(v) : v;
}

const OPS = { gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte', ne: '$ne' } as const;

/** The domain's condition as a MongoDB filter (MongoDB's own semantics are the reference). */
export function toFilter(c: Condition): Document {
  switch (c.op) {
    case 'eq':
      return { [c.field]: dbValue(c.field, c.value) };
    case 'ne':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { [c.field]: { [OPS[c.op]]: dbValue(c.field, c.value) } };
    case 'in':
      return { [c.field]: { $in: c.values.map((v) => dbValue(c.field, v)) } };
    case 'nin':
      return { [c.field]: { $nin: c.values.map((v) => dbValue(c.field, v)) } };
    case 'regex':
      return { [c.field]: { $regex: c.pattern } };
    case 'and':
    case 'or': {
      const parts = c.conditions.map(toFilter);
      if (c.op === 'and' && parts.length === 0) return {};
      if (parts.length === 1) return parts[0] as Document;
      return { [c.op === 'and' ? '$and' : '$or']: parts.length > 0 ? parts : [MATCH_NOTHING] };
    }
  }
}

const MATCH_NOTHING: Document = { _id: { $in: [] } };

/** Every read also hides documents awaiting their purge (this adapter's outbox bookkeeping). */
export function liveFilter(c: Condition): Document {
  const f = toFilter(c);
  const hide = { [PURGE_FIELD]: { $ne: true } };
  return Object.keys(f).length === 0 ? hide : { $and: [hide, f] };
}

export function toSort(sort: SortKey[]): Record<string, 1 | -1> {
  const out: Record<string, 1 | -1> = {};
  for (const k of sort) out[k.field] = k.direction;
  return out;
}

/** MongoDB's comparison order of BSON types (null and missing first). */
const TYPE_ORDER = ['null', 'number', 'string', 'object', 'array', 'objectId', 'bool', 'date'] as const;

function typeRank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  if (Array.isArray(v)) return 4;
  if (v instanceof ObjectId) return 5;
  if (typeof v === 'boolean') return 6;
  if (v instanceof Date) return 7;
  return 3;
}

/** Documents whose `field` sorts strictly after `v` in `direction` (type brackets included). */
function after(field: string, v: unknown, direction: 1 | -1): Document {
  const rank = typeRank(v);
  const others =
    direction === 1 ? TYPE_ORDER.slice(rank + 1) : TYPE_ORDER.slice(0, rank).filter((t) => t !== 'null');
  const parts: Document[] = [];
  if (rank > 0) parts.push({ [field]: { [direction === 1 ? '$gt' : '$lt']: v } });
  if (others.length > 0) parts.push({ [field]: { $type: [...others] } });
  if (direction === -1 && rank > 0) parts.push({ [field]: null });
  if (direction === 1 && rank === 0) return { [field]: { $ne: null } };
  return parts.length === 0 ? MATCH_NOTHING : parts.length === 1 ? (parts[0] as Document) : { $or: parts };
}

/**
 * Keyset continuation: (k1 after v1) or (k1 = v1 and k2 after v2) ... or (all equal and _id after).
 * Arrays sort by their extreme element in MongoDB; a keyset over an array-valued field follows
 * the stored value as a whole (documented).
 */
export function keysetFilter(sort: SortKey[], position: Keyset): Document {
  const values = [
    ...position.values.map((v, i) => dbValue((sort[i] as SortKey).field, v)),
    new ObjectId(position.id),
  ];
  const branches: Document[] = [];
  for (let i = 0; i < sort.length; i++) {
    const equal = sort.slice(0, i).map((k, j) => ({ [k.field]: values[j] ?? null }));
    const key = sort[i] as SortKey;
    branches.push({ $and: [...equal, after(key.field, values[i] ?? null, key.direction)] });
  }
  return { $or: branches };
}

/** A stored MongoDB document in the domain's terms. */
export function fromDb(doc: Document): StoredDoc {
  const { _outbox, _purgeAfterRelay, ...rest } = doc;
  void _outbox;
  void _purgeAfterRelay;
  const id: unknown = rest._id;
  // `rest` is this call's own: set on it (a spread followed by a property is slow on Node 20)
  rest._id = (id instanceof ObjectId ? id.toHexString() : String(id)) as DocumentId;
  return rest as StoredDoc;
}

export function toDb(doc: StoredDoc): Document {
  return { ...doc, _id: new ObjectId(doc._id) };
}

export type { Value };
