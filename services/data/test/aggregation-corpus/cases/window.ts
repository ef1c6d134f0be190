/**
 * `$setWindowFields` (cumulative, sliding, range-with-unit windows, rank, shift, gap filling),
 * `$fill` and `$densify`, on sensor readings with a null and a missing value.
 */
import { date, unordered } from '../helpers';
import type { CorpusCase } from '../types';

type Doc = Record<string, unknown>;

const bySensor = { partitionBy: '$sensor', sortBy: { seq: 1 } };
const show = (...fields: string[]) => ({
  $project: { _id: 0, no: 1, ...Object.fromEntries(fields.map((f) => [f, 1])) },
});
const rows = (field: string, values: Record<string, unknown>): Doc[] =>
  Object.entries(values).map(([no, v]) => ({ no, [field]: v }));

export const windowCases: CorpusCase[] = [
  unordered(
    'readings',
    '$setWindowFields running $sum per partition',
    [
      {
        $setWindowFields: {
          ...bySensor,
          output: { run: { $sum: '$value', window: { documents: ['unbounded', 'current'] } } },
        },
      },
      show('run'),
    ],
    rows('run', { r1: 10, r2: 22, r3: 22, r4: 40, r5: 5, r6: 5, r7: 14, r8: 34 }),
  ),
  unordered(
    'readings',
    '$setWindowFields whole-partition $sum',
    [{ $setWindowFields: { partitionBy: '$sensor', output: { tot: { $sum: '$value' } } } }, show('tot')],
    rows('tot', { r1: 40, r2: 40, r3: 40, r4: 40, r5: 34, r6: 34, r7: 34, r8: 34 }),
  ),
  unordered(
    'readings',
    '$setWindowFields sliding $avg skips null and missing',
    [
      {
        $setWindowFields: {
          ...bySensor,
          output: { avg: { $avg: '$value', window: { documents: [-1, 0] } } },
        },
      },
      show('avg'),
    ],
    rows('avg', { r1: 10, r2: 11, r3: 12, r4: 18, r5: 5, r6: 5, r7: 9, r8: 14.5 }),
  ),
  unordered(
    'readings',
    '$setWindowFields $rank with null and missing last when descending',
    [
      {
        $setWindowFields: { partitionBy: '$sensor', sortBy: { value: -1 }, output: { rank: { $rank: {} } } },
      },
      show('rank'),
    ],
    rows('rank', { r4: 1, r2: 2, r1: 3, r3: 4, r8: 1, r7: 2, r5: 3, r6: 4 }),
  ),
  unordered(
    'readings',
    '$setWindowFields $documentNumber',
    [{ $setWindowFields: { ...bySensor, output: { n: { $documentNumber: {} } } } }, show('n')],
    rows('n', { r1: 1, r2: 2, r3: 3, r4: 4, r5: 1, r6: 2, r7: 3, r8: 4 }),
  ),
  unordered(
    'readings',
    '$setWindowFields $shift to the previous value',
    [
      {
        $setWindowFields: {
          ...bySensor,
          output: { prev: { $shift: { output: '$seq', by: -1, default: 'none' } } },
        },
      },
      show('prev'),
    ],
    rows('prev', { r1: 'none', r2: 1, r3: 2, r4: 4, r5: 'none', r6: 1, r7: 3, r8: 4 }),
    'default only applies outside the partition',
  ),
  unordered(
    'readings',
    '$setWindowFields range window with a time unit',
    [
      {
        $setWindowFields: {
          partitionBy: '$sensor',
          sortBy: { ts: 1 },
          output: { lastHour: { $sum: '$value', window: { range: [-1, 0], unit: 'hour' } } },
        },
      },
      show('lastHour'),
    ],
    rows('lastHour', { r1: 10, r2: 22, r3: 0, r4: 18, r5: 5, r6: 0, r7: 9, r8: 20 }),
  ),
  unordered(
    'readings',
    '$setWindowFields $first, $last, $min, $max over the partition',
    [
      {
        $setWindowFields: {
          ...bySensor,
          output: {
            first: { $first: '$value', window: { documents: ['unbounded', 'unbounded'] } },
            last: { $last: '$value', window: { documents: ['unbounded', 'unbounded'] } },
            lo: { $min: '$value' },
            hi: { $max: '$value' },
          },
        },
      },
      { $match: { no: { $in: ['r1', 'r5'] } } },
      show('first', 'last', 'lo', 'hi'),
    ],
    [
      { no: 'r1', first: 10, last: 18, lo: 10, hi: 18 },
      { no: 'r5', first: 5, last: 20, lo: 5, hi: 20 },
    ],
  ),
  unordered(
    'readings',
    '$setWindowFields $push over a centred window',
    [
      {
        $setWindowFields: {
          ...bySensor,
          output: { near: { $push: '$seq', window: { documents: [-1, 1] } } },
        },
      },
      { $match: { sensor: 'A' } },
      show('near'),
    ],
    rows('near', { r1: [1, 2], r2: [1, 2, 4], r3: [2, 4, 5], r4: [4, 5] }),
  ),
  unordered(
    'readings',
    '$setWindowFields $count',
    [
      { $setWindowFields: { partitionBy: '$sensor', output: { n: { $count: {} } } } },
      { $group: { _id: '$sensor', n: { $max: '$n' } } },
    ],
    [
      { _id: 'A', n: 4 },
      { _id: 'B', n: 4 },
    ],
  ),
  unordered(
    'readings',
    '$setWindowFields without partition, running count',
    [
      {
        $setWindowFields: {
          sortBy: { ts: 1, sensor: 1 },
          output: { i: { $sum: 1, window: { documents: ['unbounded', 'current'] } } },
        },
      },
      show('i'),
    ],
    rows('i', { r1: 1, r5: 2, r2: 3, r6: 4, r3: 5, r7: 6, r4: 7, r8: 8 }),
  ),
  unordered(
    'readings',
    '$setWindowFields $locf',
    [{ $setWindowFields: { ...bySensor, output: { value: { $locf: '$value' } } } }, show('value')],
    rows('value', { r1: 10, r2: 12, r3: 12, r4: 18, r5: 5, r6: 5, r7: 9, r8: 20 }),
  ),
  unordered(
    'readings',
    '$setWindowFields $linearFill by time',
    [
      {
        $setWindowFields: {
          partitionBy: '$sensor',
          sortBy: { ts: 1 },
          output: { value: { $linearFill: '$value' } },
        },
      },
      show('value'),
    ],
    rows('value', { r1: 10, r2: 12, r3: 16, r4: 18, r5: 5, r6: 5 + (4 * 2) / 3, r7: 9, r8: 20 }),
  ),
  unordered(
    'readings',
    '$fill last observation carried forward',
    [
      { $fill: { partitionByFields: ['sensor'], sortBy: { seq: 1 }, output: { value: { method: 'locf' } } } },
      show('value'),
    ],
    rows('value', { r1: 10, r2: 12, r3: 12, r4: 18, r5: 5, r6: 5, r7: 9, r8: 20 }),
  ),
  unordered(
    'readings',
    '$fill with a constant fills null and missing',
    [{ $fill: { output: { value: { value: 0 } } } }, show('value')],
    rows('value', { r1: 10, r2: 12, r3: 0, r4: 18, r5: 5, r6: 0, r7: 9, r8: 20 }),
  ),
  unordered(
    'readings',
    '$fill linear',
    [
      {
        $fill: { partitionByFields: ['sensor'], sortBy: { ts: 1 }, output: { value: { method: 'linear' } } },
      },
      show('value'),
    ],
    rows('value', { r1: 10, r2: 12, r3: 16, r4: 18, r5: 5, r6: 5 + (4 * 2) / 3, r7: 9, r8: 20 }),
  ),
  unordered(
    'readings',
    '$densify numbers per partition',
    [
      { $densify: { field: 'seq', partitionByFields: ['sensor'], range: { step: 1, bounds: 'partition' } } },
      { $project: { _id: 0, sensor: 1, seq: 1 } },
    ],
    [
      ...[1, 2, 3, 4, 5].map((seq) => ({ sensor: 'A', seq })),
      ...[1, 2, 3, 4, 5, 6].map((seq) => ({ sensor: 'B', seq })),
    ],
  ),
  unordered(
    'readings',
    '$densify full range of one sensor',
    [
      { $match: { sensor: 'A' } },
      { $densify: { field: 'seq', range: { step: 1, bounds: 'full' } } },
      { $project: { _id: 0, seq: 1 } },
    ],
    [1, 2, 3, 4, 5].map((seq) => ({ seq })),
  ),
  unordered(
    'readings',
    '$densify explicit bounds, upper bound exclusive',
    [
      { $densify: { field: 'seq', range: { step: 1, bounds: [0, 3] } } },
      { $match: { no: { $exists: false } } },
      { $project: { _id: 0, seq: 1 } },
    ],
    [{ seq: 0 }],
  ),
  unordered(
    'readings',
    '$densify explicit bounds beyond the data',
    [
      { $match: { sensor: 'A' } },
      { $densify: { field: 'seq', range: { step: 1, bounds: [0, 8] } } },
      { $match: { no: { $exists: false } } },
      { $project: { _id: 0, seq: 1 } },
    ],
    [0, 3, 6, 7].map((seq) => ({ seq })),
    'explicit bounds fill the whole [lower, upper) grid; mingo alone stops at the largest value present (5)',
  ),
  unordered(
    'readings',
    '$densify dates by the hour per partition',
    [
      {
        $densify: {
          field: 'ts',
          partitionByFields: ['sensor'],
          range: { step: 1, unit: 'hour', bounds: 'partition' },
        },
      },
      { $match: { no: { $exists: false } } },
      { $project: { _id: 0, sensor: 1, ts: 1 } },
    ],
    [
      { sensor: 'A', ts: date('2024-01-01T02:00:00Z') },
      { sensor: 'B', ts: date('2024-01-01T01:00:00Z') },
      { sensor: 'B', ts: date('2024-01-01T04:00:00Z') },
    ],
  ),
];
