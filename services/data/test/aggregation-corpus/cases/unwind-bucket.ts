/**
 * `$unwind` (a non-array value counts as one element; null, missing and empty arrays are dropped
 * unless preserved; an empty array is preserved without the field), `$bucket` (lower bound
 * inclusive, upper exclusive, empty buckets omitted, the default bucket sorted by BSON order),
 * `$bucketAuto` and `$sortByCount`.
 */
import { orders } from '../datasets';
import { date, ordered, sum, unordered } from '../helpers';
import type { CorpusCase } from '../types';

type Doc = Record<string, unknown>;

function unwound(preserve: boolean, index: boolean): Doc[] {
  const out: Doc[] = [];
  for (const o of orders) {
    const base: Doc = { no: o.no };
    const t = o.tags;
    if (Array.isArray(t) && t.length > 0)
      t.forEach((tag, i) => out.push({ ...base, tags: tag, ...(index ? { i } : {}) }));
    else if (Array.isArray(t)) {
      if (preserve) out.push({ ...base, ...(index ? { i: null } : {}) });
    } else if (t !== undefined && t !== null) out.push({ ...base, tags: t, ...(index ? { i: null } : {}) });
    else if (preserve)
      out.push({ ...base, ...(t === null ? { tags: null } : {}), ...(index ? { i: null } : {}) });
  }
  return out;
}

const qtyBySku = new Map<string, number>();
for (const o of orders)
  for (const it of o.items as { sku: string; qty: number }[])
    qtyBySku.set(it.sku, (qtyBySku.get(it.sku) ?? 0) + it.qty);

export const unwindCases: CorpusCase[] = [
  unordered(
    'orders',
    '$unwind an array field (a scalar counts as one element)',
    [{ $unwind: '$tags' }, { $project: { _id: 0, no: 1, tags: 1 } }],
    unwound(false, false),
  ),
  unordered(
    'orders',
    '$unwind preserveNullAndEmptyArrays',
    [
      { $unwind: { path: '$tags', preserveNullAndEmptyArrays: true } },
      { $project: { _id: 0, no: 1, tags: 1 } },
    ],
    unwound(true, false),
    'o3 (empty array) comes out without the field; o6 and o10 (missing) unchanged',
  ),
  unordered(
    'orders',
    '$unwind includeArrayIndex',
    [{ $unwind: { path: '$tags', includeArrayIndex: 'i' } }, { $project: { _id: 0, no: 1, tags: 1, i: 1 } }],
    unwound(false, true),
    'a non-array value gets a null index',
  ),
  unordered(
    'orders',
    '$unwind with both options',
    [
      { $unwind: { path: '$tags', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } },
      { $project: { _id: 0, no: 1, tags: 1, i: 1 } },
    ],
    unwound(true, true),
  ),
  unordered(
    'orders',
    '$unwind items then $group by sku',
    [{ $unwind: '$items' }, { $group: { _id: '$items.sku', qty: { $sum: '$items.qty' } } }],
    [...qtyBySku].map(([sku, qty]) => ({ _id: sku, qty })),
  ),
  unordered(
    'orders',
    '$unwind items then compute line totals',
    [
      { $match: { no: 'o8' } },
      { $unwind: '$items' },
      { $project: { _id: 0, sku: '$items.sku', line: { $multiply: ['$items.qty', '$items.price'] } } },
    ],
    [
      { sku: 'p1', line: 30 },
      { sku: 'p6', line: 45.25 },
    ],
  ),
  unordered(
    'orders',
    '$unwind a mostly scalar field',
    [{ $unwind: '$customer' }, { $group: { _id: '$customer', n: { $sum: 1 } } }],
    [
      { _id: 'c1', n: 3 },
      { _id: 'c2', n: 2 },
      { _id: 'c3', n: 1 },
      { _id: 'c4', n: 1 },
      { _id: 'c6', n: 1 },
      { _id: 'c7', n: 2 },
      { _id: 'c99', n: 1 },
    ],
    'o6 (null) and o7 (missing) are dropped; o9 [c1, c7] gives two rows',
  ),
  unordered(
    'orders',
    '$unwind a nested scalar path',
    [{ $unwind: '$address.zip' }, { $count: 'n' }],
    [{ n: 7 }],
  ),
  unordered(
    'customers',
    '$unwind scores then average per customer',
    [{ $unwind: '$scores' }, { $group: { _id: '$no', avg: { $avg: '$scores' }, n: { $sum: 1 } } }],
    [
      { _id: 'c1', avg: (90 + 75 + 88) / 3, n: 3 },
      { _id: 'c2', avg: 77.5, n: 2 },
      { _id: 'c4', avg: 70, n: 1 },
      { _id: 'c6', avg: 100, n: 2 },
      { _id: 'c7', avg: 65, n: 3 },
      { _id: 'c8', avg: 80, n: 1 },
    ],
  ),
  unordered(
    'orders',
    '$unwind twice',
    [{ $match: { no: { $in: ['o1', 'o8'] } } }, { $unwind: '$items' }, { $unwind: '$tags' }, { $count: 'n' }],
    [{ n: 2 * 2 + 2 * 3 }],
  ),
];

export const bucketCases: CorpusCase[] = [
  ordered(
    'orders',
    '$bucket counts per range, sorted by lower bound',
    [{ $bucket: { groupBy: '$total', boundaries: [0, 50, 100, 500] } }],
    [
      { _id: 0, count: 5 },
      { _id: 50, count: 4 },
      { _id: 100, count: 3 },
    ],
  ),
  ordered(
    'orders',
    '$bucket puts a value equal to a boundary in the upper bucket',
    [{ $bucket: { groupBy: '$total', boundaries: [40, 45, 100, 300], default: 'other' } }],
    [
      { _id: 40, count: 1 },
      { _id: 45, count: 5 },
      { _id: 100, count: 2 },
      { _id: 'other', count: 4 },
    ],
    'mingo alone puts 45 in the [40, 45) bucket; the last boundary (300) is exclusive, so o4 goes to the default',
  ),
  ordered(
    'orders',
    '$bucket omits empty buckets',
    [{ $bucket: { groupBy: '$total', boundaries: [0, 1, 5, 20, 1000] } }],
    [
      { _id: 0, count: 1 },
      { _id: 5, count: 2 },
      { _id: 20, count: 9 },
    ],
    'mingo alone emits { _id: 1, count: 0 }',
  ),
  ordered(
    'orders',
    '$bucket with output accumulators only',
    [
      { $sort: { no: 1 } },
      {
        $bucket: {
          groupBy: '$total',
          boundaries: [0, 100, 1000],
          output: { n: { $sum: 1 }, nos: { $push: '$no' } },
        },
      },
    ],
    [
      { _id: 0, n: 9, nos: ['o10', 'o11', 'o12', 'o2', 'o3', 'o5', 'o6', 'o8', 'o9'] },
      { _id: 100, n: 3, nos: ['o1', 'o4', 'o7'] },
    ],
  ),
  ordered(
    'orders',
    '$bucket on dates',
    [
      {
        $bucket: {
          groupBy: '$createdAt',
          boundaries: [
            date('2024-01-01T00:00:00Z'),
            date('2024-04-01T00:00:00Z'),
            date('2024-07-01T00:00:00Z'),
          ],
        },
      },
    ],
    [
      { _id: date('2024-01-01T00:00:00Z'), count: 6 },
      { _id: date('2024-04-01T00:00:00Z'), count: 6 },
    ],
  ),
  ordered(
    'orders',
    '$bucket on a mixed-type field with a default',
    [{ $bucket: { groupBy: '$priority', boundaries: [0, 2, 10], default: 'other' } }],
    [
      { _id: 0, count: 2 },
      { _id: 2, count: 3 },
      { _id: 'other', count: 7 },
    ],
    'strings, booleans, null, missing and arrays fall outside numeric boundaries',
  ),
  ordered(
    'orders',
    '$bucket default below the lowest boundary sorts first',
    [{ $bucket: { groupBy: '$total', boundaries: [10, 100], default: -1 } }],
    [
      { _id: -1, count: 4 },
      { _id: 10, count: 8 },
    ],
  ),
  ordered(
    'products',
    '$bucket with $push output',
    [{ $bucket: { groupBy: '$price', boundaries: [0, 20, 60, 200], output: { skus: { $push: '$no' } } } }],
    [
      { _id: 0, skus: ['p1', 'p8', 'p9'] },
      { _id: 20, skus: ['p2', 'p3', 'p5', 'p6'] },
      { _id: 60, skus: ['p4', 'p7'] },
    ],
  ),
  ordered(
    'products',
    '$bucketAuto even buckets',
    [{ $bucketAuto: { groupBy: '$price', buckets: 3 } }],
    [
      { _id: { min: 3.5, max: 25 }, count: 3 },
      { _id: { min: 25, max: 50 }, count: 3 },
      { _id: { min: 50, max: 100 }, count: 3 },
    ],
  ),
  ordered(
    'orders',
    '$bucketAuto four buckets of totals',
    [{ $bucketAuto: { groupBy: '$total', buckets: 4 } }],
    [
      { _id: { min: 0, max: 40 }, count: 3 },
      { _id: { min: 40, max: 75.25 }, count: 3 },
      { _id: { min: 75.25, max: 120.5 }, count: 3 },
      { _id: { min: 120.5, max: 300 }, count: 3 },
    ],
  ),
  ordered(
    'products',
    '$bucketAuto with output',
    [{ $bucketAuto: { groupBy: '$price', buckets: 3, output: { skus: { $push: '$no' } } } }],
    [
      { _id: { min: 3.5, max: 25 }, skus: ['p8', 'p1', 'p9'] },
      { _id: { min: 25, max: 50 }, skus: ['p2', 'p3', 'p6'] },
      { _id: { min: 50, max: 100 }, skus: ['p5', 'p7', 'p4'] },
    ],
  ),
  ordered(
    'orders',
    '$bucketAuto keeps equal values in one bucket',
    [{ $bucketAuto: { groupBy: '$status', buckets: 2 } }],
    [
      { _id: { min: 'cancelled', max: 'shipped' }, count: 9 },
      { _id: { min: 'shipped', max: 'shipped' }, count: 3 },
    ],
  ),
  unordered(
    'orders',
    '$sortByCount',
    [{ $sortByCount: '$status' }],
    [
      { _id: 'paid', count: 4 },
      { _id: 'new', count: 3 },
      { _id: 'shipped', count: 3 },
      { _id: 'cancelled', count: 2 },
    ],
  ),
  unordered(
    'orders',
    '$sortByCount after $unwind',
    [{ $unwind: '$tags' }, { $sortByCount: '$tags' }],
    [
      { _id: 'express', count: 4 },
      { _id: 'gift', count: 4 },
      { _id: 'bulk', count: 2 },
      { _id: 'fragile', count: 2 },
      { _id: 'split', count: 1 },
      { _id: 'solo', count: 1 },
    ],
  ),
  unordered(
    'orders',
    '$sortByCount of a nested field groups missing as null',
    [{ $sortByCount: '$address.city' }],
    [
      { _id: 'Paris', count: 3 },
      { _id: 'Berlin', count: 3 },
      { _id: 'Madrid', count: 2 },
      { _id: 'Lyon', count: 2 },
      { _id: null, count: 2 },
    ],
  ),
  ordered(
    'orders',
    '$sortByCount of an expression',
    [{ $sortByCount: { $year: '$createdAt' } }],
    [{ _id: 2024, count: 12 }],
  ),
  ordered(
    'orders',
    '$sortByCount is descending by count',
    [{ $sortByCount: '$status' }, { $limit: 1 }],
    [{ _id: 'paid', count: 4 }],
  ),
  unordered(
    'orders',
    '$unwind then $bucket',
    [
      { $unwind: '$items' },
      { $bucket: { groupBy: '$items.qty', boundaries: [1, 2, 4, 10], output: { n: { $sum: 1 } } } },
    ],
    [
      { _id: 1, n: orders.flatMap((o) => o.items as { qty: number }[]).filter((i) => i.qty < 2).length },
      {
        _id: 2,
        n: orders.flatMap((o) => o.items as { qty: number }[]).filter((i) => i.qty >= 2 && i.qty < 4).length,
      },
      { _id: 4, n: orders.flatMap((o) => o.items as { qty: number }[]).filter((i) => i.qty >= 4).length },
    ],
  ),
  unordered(
    'orders',
    '$bucket total revenue per range',
    [{ $bucket: { groupBy: '$total', boundaries: [0, 100, 1000], output: { revenue: { $sum: '$total' } } } }],
    [
      { _id: 0, revenue: sum(orders.map((o) => o.total as number).filter((t) => t < 100)) },
      { _id: 100, revenue: sum(orders.map((o) => o.total as number).filter((t) => t >= 100)) },
    ],
  ),
];
