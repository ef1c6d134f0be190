/**
 * MongoDB's value order and equality over the JavaScript values a document holds (JSON values,
 * Dates, ObjectIds, RegExps). mingo's own comparator sorts arrays and object keys before comparing
 * them and puts ObjectIds after everything, so the stages whose answer depends on the exact order
 * (`$sort`, `$lookup` equality) use these instead.
 */

export type Doc = Record<string, unknown>;

/** A bson ObjectId (from the mongodb driver) or anything shaped like one. */
export interface ObjectIdLike {
  toHexString(): string;
}

export function isObjectId(v: unknown): v is ObjectIdLike {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { toHexString?: unknown }).toHexString === 'function' &&
    (v as { _bsontype?: unknown })._bsontype === 'ObjectId'
  );
}

export function isPlainObject(v: unknown): v is Doc {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** BSON type brackets in MongoDB's comparison order (null and missing compare equal). */
function rank(v: unknown): number {
  if (v === null || v === undefined) return 1;
  if (typeof v === 'number' || typeof v === 'bigint') return 2;
  if (typeof v === 'string') return 3;
  if (typeof v === 'boolean') return 8;
  if (Array.isArray(v)) return 5;
  if (isObjectId(v)) return 7;
  if (v instanceof Date) return 9;
  if (v instanceof RegExp) return 11;
  return 4;
}

function cmp<T>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Binary (UTF-8 byte) order, which is code point order, not JavaScript's UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const surrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;
    if (!surrogate(x) && !surrogate(y)) return x < y ? -1 : 1;
    return cmp(a.codePointAt(i) ?? x, b.codePointAt(i) ?? y);
  }
  return cmp(a.length, b.length);
}

function compareNumbers(a: number, b: number): number {
  // MongoDB orders NaN below every other number and equal to itself.
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : -1;
  if (Number.isNaN(b)) return 1;
  return cmp(a, b);
}

function compareObjects(a: Doc, b: Doc): number {
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const [fa, fb] = [ka[i] as string, kb[i] as string];
    const byType = cmp(rank(a[fa]), rank(b[fb]));
    if (byType !== 0) return byType;
    const byName = compareStrings(fa, fb);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[fa], b[fb]);
    if (byValue !== 0) return byValue;
  }
  return cmp(ka.length, kb.length);
}

/** MongoDB's total order of values (the order of `$sort` keys and of comparison expressions). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return cmp(ra, rb);
  switch (ra) {
    case 1:
      return 0;
    case 2:
      return compareNumbers(Number(a), Number(b));
    case 3:
      return compareStrings(a as string, b as string);
    case 5: {
      const [xs, ys] = [a as unknown[], b as unknown[]];
      const n = Math.min(xs.length, ys.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(xs[i], ys[i]);
        if (c !== 0) return c;
      }
      return cmp(xs.length, ys.length);
    }
    case 7:
      return cmp((a as ObjectIdLike).toHexString(), (b as ObjectIdLike).toHexString());
    case 8:
      return cmp(Number(a), Number(b));
    case 9:
      return cmp((a as Date).getTime(), (b as Date).getTime());
    case 11: {
      const [x, y] = [a as RegExp, b as RegExp];
      return compareStrings(x.source, y.source) || compareStrings(x.flags, y.flags);
    }
    default:
      return compareObjects(a as Doc, b as Doc);
  }
}

/**
 * A string equal for two values exactly when MongoDB's equality holds (1 and 1.0 are equal,
 * field order of objects matters, null and missing are equal): the key of a hash join.
 */
export function equalityKey(v: unknown): string {
  if (v === null || v === undefined) return 'z';
  if (typeof v === 'number') return Object.is(v, -0) ? 'n0' : `n${v}`;
  if (typeof v === 'bigint') return `n${v}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return v ? 'bt' : 'bf';
  if (Array.isArray(v)) return `a[${v.map(equalityKey).join(',')}]`;
  if (isObjectId(v)) return `o${v.toHexString()}`;
  if (v instanceof Date) return `d${v.getTime()}`;
  if (v instanceof RegExp) return `r${JSON.stringify([v.source, v.flags])}`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Doc))
    if (x !== undefined) parts.push(`${JSON.stringify(k)}:${equalityKey(x)}`);
  return `{${parts.join(',')}}`;
}

function collect(value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    if (value !== undefined) out.push(value);
    return;
  }
  const part = parts[i] as string;
  if (Array.isArray(value)) {
    // A numeric component indexes the array; any component also reaches into object elements.
    if (/^\d+$/.test(part)) collect(value[Number(part)], parts, i + 1, out);
    for (const el of value) if (isPlainObject(el)) collect(el[part], parts, i + 1, out);
    return;
  }
  if (isPlainObject(value)) collect(value[part], parts, i + 1, out);
}

/**
 * The values a dotted path reaches in a document, traversing arrays along the way as a MongoDB
 * query does. A leaf that is an array is returned whole; missing leaves are left out.
 */
export function reach(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.split('.'), 0, out);
  return out;
}

/** A copy safe to mutate: plain objects and arrays are copied, other values (Dates, ids) shared. */
export function cloneValue<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneValue) as T;
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const [k, x] of Object.entries(v)) out[k] = cloneValue(x);
    return out as T;
  }
  return v;
}
