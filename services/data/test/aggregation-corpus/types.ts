/** One pipeline and the answer MongoDB gives for it on the named dataset. */
export interface CorpusCase {
  name: string;
  collection: DatasetName;
  pipeline: Record<string, unknown>[];
  expected: Record<string, unknown>[];
  /** true: rows in this exact order; false: compared as a multiset. */
  ordered: boolean;
  /** Where MongoDB's behaviour is subtle or an in-process engine departs from it, and what is asserted. */
  note?: string;
  /**
   * The answer of the in-process engine where it knowingly departs from MongoDB (explained in
   * `note`); `expected` stays MongoDB's answer, for runs against a real MongoDB.
   */
  inProcess?: Record<string, unknown>[];
}

export type DatasetName = 'orders' | 'products' | 'customers' | 'readings' | 'mixed';
