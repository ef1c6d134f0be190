/**
 * The differential corpus of aggregation pipelines: fixed datasets and, for each case, the answer
 * MongoDB gives (from its documented semantics, written by hand or computed with plain JavaScript
 * from the datasets, never by an aggregation engine). The pipeline engine's unit test runs every
 * case in process; the same cases can run end to end through the data service on either store.
 */
import { bucketCases, unwindCases } from './cases/unwind-bucket';
import { graphLookupCases, lookupCases } from './cases/joins';
import { groupCases } from './cases/group';
import { matchCases } from './cases/match';
import { projectCases } from './cases/project';
import { shapeCases } from './cases/shape';
import { sortCases } from './cases/sort-page';
import { windowCases } from './cases/window';
import { datasets } from './datasets';
import type { CorpusCase } from './types';

export { datasets, idOf } from './datasets';
export type { CorpusCase, DatasetName } from './types';

/** Cases by stage family (the family a case mainly exercises). */
export const corpusFamilies: Record<string, CorpusCase[]> = {
  match: matchCases,
  group: groupCases,
  project: projectCases,
  sort: sortCases,
  unwind: unwindCases,
  bucket: bucketCases,
  lookup: lookupCases,
  graphLookup: graphLookupCases,
  window: windowCases,
  shape: shapeCases,
};

export const aggregationCorpus = {
  datasets,
  cases: Object.values(corpusFamilies).flat(),
};
