import { compareValues, reach, type Doc } from './bson';
import { engineErrors } from './budget';

/** An empty array sorts before null and missing, in both directions' key selection. */
const EMPTY_ARRAY = Symbol('empty array');
type SortKey = unknown;

function compareKeys(a: SortKey, b: SortKey): number {
  if (a === EMPTY_ARRAY || b === EMPTY_ARRAY) return a === b ? 0 : a === EMPTY_ARRAY ? -1 : 1;
  return compareValues(a, b);
}

/**
 * MongoDB's key for one sort field: the field's value, or for an array its smallest element when
 * ascending and its largest when descending (mingo uses the smallest in both directions).
 */
function sortKey(doc: Doc, path: string, direction: 1 | -1): SortKey {
  const candidates: unknown[] = [];
  let emptyArray = false;
  for (const leaf of reach(doc, path)) {
    if (!Array.isArray(leaf)) candidates.push(leaf);
    else if (leaf.length === 0) emptyArray = true;
    else candidates.push(...(leaf as unknown[]));
  }
  if (candidates.length === 0) return emptyArray ? EMPTY_ARRAY : null;
  let best = candidates[0];
  for (const c of candidates) if (compareValues(c, best) * direction < 0) best = c;
  return best;
}

function parseSpec(spec: unknown): [string, 1 | -1][] {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec) || Object.keys(spec).length === 0)
    throw engineErrors.failed('$sort takes an object of field: 1 or -1');
  return Object.entries(spec as Doc).map(([path, dir]) => {
    if (dir !== 1 && dir !== -1) throw engineErrors.failed(`$sort direction of '${path}' must be 1 or -1`);
    return [path, dir];
  });
}

/** `$sort`, stable (ties keep their input order). */
export function sortDocuments(docs: readonly Doc[], spec: unknown): Doc[] {
  const fields = parseSpec(spec);
  const keyed = docs.map((doc) => ({ doc, keys: fields.map(([p, d]) => sortKey(doc, p, d)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareKeys(a.keys[i], b.keys[i]);
      if (c !== 0) return c * (fields[i] as [string, 1 | -1])[1];
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}
