/**
 * Stages that reshape documents: `$replaceRoot`/`$replaceWith`, `$facet` (one row, even on an
 * empty input), `$redact`, and longer pipelines mixing families.
 */
import { orders } from '../datasets';
import { ordered, sum, unordered } from '../helpers';
import type { CorpusCase } from '../types';

type Doc = Record<string, unknown>;

export const shapeCases: CorpusCase[] = [
  unordered(
    'orders',
    '$replaceRoot with an embedded document',
    [{ $match: { address: { $exists: true } } }, { $replaceRoot: { newRoot: '$address' } }],
    orders.filter((o) => o.address !== undefined).map((o) => o.address as Doc),
  ),
  unordered(
    'orders',
    '$replaceWith a merged document (missing parts ignored)',
    [
      { $match: { no: { $in: ['o2', 'o6'] } } },
      { $replaceWith: { $mergeObjects: [{ no: '$no' }, '$address'] } },
    ],
    [{ no: 'o2', city: 'Lyon' }, { no: 'o6' }],
  ),
  unordered(
    'orders',
    '$replaceRoot with a computed document',
    [
      { $match: { no: 'o4' } },
      { $replaceRoot: { newRoot: { n: '$no', net: { $subtract: ['$total', '$discount'] } } } },
    ],
    [{ n: 'o4', net: 270 }],
  ),
  unordered(
    'orders',
    '$replaceWith an element of an array',
    [{ $match: { no: 'o8' } }, { $replaceWith: { $arrayElemAt: ['$items', 1] } }],
    [{ sku: 'p6', qty: 1, price: 45.25 }],
  ),
  unordered(
    'orders',
    '$unwind then $replaceRoot to the array element',
    [
      { $match: { no: { $in: ['o1', 'o2'] } } },
      { $unwind: '$items' },
      { $replaceRoot: { newRoot: '$items' } },
    ],
    [...(orders[0]?.items as Doc[]), ...(orders[1]?.items as Doc[])],
  ),
  unordered(
    'orders',
    '$facet several pipelines on the same input',
    [
      {
        $facet: {
          byStatus: [{ $group: { _id: '$status', n: { $sum: 1 } } }, { $sort: { _id: 1 } }],
          top: [{ $sort: { total: -1 } }, { $limit: 2 }, { $project: { _id: 0, no: 1 } }],
          count: [{ $count: 'n' }],
        },
      },
    ],
    [
      {
        byStatus: [
          { _id: 'cancelled', n: 2 },
          { _id: 'new', n: 3 },
          { _id: 'paid', n: 4 },
          { _id: 'shipped', n: 3 },
        ],
        top: [{ no: 'o4' }, { no: 'o7' }],
        count: [{ n: 12 }],
      },
    ],
  ),
  unordered(
    'orders',
    '$facet on an empty input still returns one row',
    [{ $match: { no: 'none' } }, { $facet: { a: [{ $count: 'n' }], b: [{ $project: { no: 1 } }] } }],
    [{ a: [], b: [] }],
  ),
  unordered(
    'orders',
    '$facet with $bucket and $bucketAuto',
    [
      {
        $facet: {
          ranges: [{ $bucket: { groupBy: '$total', boundaries: [0, 100, 1000] } }],
          auto: [{ $bucketAuto: { groupBy: '$total', buckets: 2 } }],
        },
      },
    ],
    [
      {
        ranges: [
          { _id: 0, count: 9 },
          { _id: 100, count: 3 },
        ],
        auto: [
          { _id: { min: 0, max: 75.25 }, count: 6 },
          { _id: { min: 75.25, max: 300 }, count: 6 },
        ],
      },
    ],
  ),
  unordered(
    'orders',
    '$facet with a $lookup inside',
    [
      { $match: { no: 'o5' } },
      {
        $facet: {
          who: [
            { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'c' } },
            { $project: { _id: 0, name: { $first: '$c.name' } } },
          ],
        },
      },
    ],
    [{ who: [{ name: 'dan' }] }],
  ),
  unordered(
    'orders',
    '$facet then $project of its arrays',
    [
      { $facet: { paid: [{ $match: { status: 'paid' } }], all: [] } },
      { $project: { paid: { $size: '$paid' }, all: { $size: '$all' } } },
    ],
    [{ paid: 4, all: 12 }],
  ),
  unordered(
    'customers',
    '$redact keeps or prunes whole documents',
    [
      { $redact: { $cond: [{ $eq: ['$tier', 'gold'] }, '$$KEEP', '$$PRUNE'] } },
      { $project: { _id: 0, no: 1 } },
    ],
    [{ no: 'c1' }, { no: 'c3' }, { no: 'c7' }],
  ),
  unordered(
    'orders',
    '$redact descends into embedded documents',
    [
      { $match: { no: 'o1' } },
      { $project: { _id: 0, no: 1, items: 1 } },
      { $redact: { $cond: [{ $gte: [{ $ifNull: ['$qty', 99] }, 2] }, '$$DESCEND', '$$PRUNE'] } },
    ],
    [{ no: 'o1', items: [{ sku: 'p1', qty: 2, price: 10 }] }],
    'the top level has no qty (99 by $ifNull), so it descends; the item with qty 1 is pruned',
  ),
  ordered(
    'orders',
    'a dashboard pipeline: filter, join, unwind, group, sort, limit',
    [
      { $match: { status: { $in: ['paid', 'shipped'] } } },
      { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'c' } },
      { $unwind: '$c' },
      { $group: { _id: '$c.address.country', orders: { $sum: 1 }, revenue: { $sum: '$total' } } },
      { $sort: { revenue: -1 } },
      { $limit: 2 },
    ],
    [
      { _id: 'FR', orders: 4, revenue: 120.5 + 40 + 99.99 + 60 },
      { _id: 'DE', orders: 2, revenue: 60 + 45 },
    ],
    'o9 has two customers (FR and DE): it counts once for each after $unwind; o7 has none and drops out',
  ),
  ordered(
    'orders',
    'items per product: unwind, lookup, group, sort',
    [
      { $unwind: '$items' },
      { $lookup: { from: 'products', localField: 'items.sku', foreignField: 'no', as: 'p' } },
      { $group: { _id: { $first: '$p.category' }, qty: { $sum: '$items.qty' } } },
      { $sort: { qty: -1, _id: 1 } },
    ],
    [
      { _id: 'office', qty: 2 + 1 + 4 + 1 + 1 + 3 + 2 + 1 },
      { _id: 'furniture', qty: 3 + 5 },
      { _id: 'lighting', qty: 1 + 1 },
      { _id: null, qty: 1 },
    ],
  ),
  unordered(
    'orders',
    '$addFields then $match on the new field then $count',
    [{ $addFields: { lines: { $size: '$items' } } }, { $match: { lines: { $gte: 2 } } }, { $count: 'n' }],
    [{ n: 2 }],
  ),
  unordered(
    'orders',
    '$group then $lookup on the group key',
    [
      { $match: { customer: { $type: 'string' } } },
      { $group: { _id: '$customer', spent: { $sum: '$total' } } },
      { $lookup: { from: 'customers', localField: '_id', foreignField: 'no', as: 'c' } },
      { $project: { spent: 1, name: { $ifNull: [{ $first: '$c.name' }, 'unknown'] } } },
    ],
    [
      { _id: 'c1', spent: 135.5, name: 'Ada' },
      { _id: 'c2', spent: 120, name: 'Brian' },
      { _id: 'c3', spent: 300, name: 'Chloé' },
      { _id: 'c4', spent: 99.99, name: 'dan' },
      { _id: 'c6', spent: 75.25, name: 'Farid' },
      { _id: 'c7', spent: 45, name: 'Gus' },
      { _id: 'c99', spent: 12.75, name: 'unknown' },
      { _id: ['c1', 'c7'], spent: 60, name: 'Ada' },
    ],
    "$type 'string' also matches o9's array of strings; its array key then joins both customers",
  ),
  unordered(
    'orders',
    '$project then $group on computed fields',
    [
      {
        $project: {
          month: { $month: '$createdAt' },
          net: { $subtract: ['$total', { $ifNull: ['$discount', 0] }] },
        },
      },
      { $group: { _id: { $lte: ['$month', 3] }, net: { $sum: '$net' } } },
    ],
    [
      {
        _id: true,
        net: sum(
          orders
            .filter((o) => (o.createdAt as Date).getUTCMonth() < 3)
            .map((o) => (o.total as number) - ((o.discount as number | null | undefined) ?? 0)),
        ),
      },
      {
        _id: false,
        net: sum(
          orders
            .filter((o) => (o.createdAt as Date).getUTCMonth() >= 3)
            .map((o) => (o.total as number) - ((o.discount as number | null | undefined) ?? 0)),
        ),
      },
    ],
  ),
];
