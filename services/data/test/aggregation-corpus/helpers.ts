import type { CorpusCase, DatasetName } from './types';

type Doc = Record<string, unknown>;

/** Rows named by their business key, as `keepNo` leaves them. */
export const nos = (...keys: string[]): Doc[] => keys.map((no) => ({ no }));

/** Keeps only the business key, so expected rows stay short. */
export const keepNo = { $project: { _id: 0, no: 1 } };

export function unordered(
  collection: DatasetName,
  name: string,
  pipeline: Doc[],
  expected: Doc[],
  note?: string,
): CorpusCase {
  return { name, collection, pipeline, expected, ordered: false, ...(note ? { note } : {}) };
}

export function ordered(
  collection: DatasetName,
  name: string,
  pipeline: Doc[],
  expected: Doc[],
  note?: string,
): CorpusCase {
  return { name, collection, pipeline, expected, ordered: true, ...(note ? { note } : {}) };
}

/** A `$match` case: the filter, then the business keys of the documents MongoDB returns. */
export function match(
  collection: DatasetName,
  name: string,
  filter: Doc,
  keys: string[],
  note?: string,
): CorpusCase {
  return unordered(
    collection,
    `$match ${collection}: ${name}`,
    [{ $match: filter }, keepNo],
    nos(...keys),
    note,
  );
}

export const date = (iso: string) => new Date(iso);

export function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
