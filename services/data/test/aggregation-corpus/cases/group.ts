/**
 * `$group` with every common accumulator, several at once (FerretDB answered 0 for every
 * accumulator after the first), group keys that are missing, nested, compound, arrays and
 * computed, and MongoDB's rules for non-numeric values ($sum and $avg skip them; $min and $max
 * skip null and missing and otherwise compare across types in BSON order).
 * Expected values are computed from the datasets with plain JavaScript.
 */
import { customers, orders, products } from '../datasets';
import { keepNo, ordered, sum, unordered } from '../helpers';
import type { CorpusCase } from '../types';

type Doc = Record<string, unknown>;

function groups<K>(docs: Doc[], key: (d: Doc) => K): { key: K; docs: Doc[] }[] {
  const out = new Map<string, { key: K; docs: Doc[] }>();
  for (const d of docs) {
    const k = key(d);
    const id = JSON.stringify(k === undefined ? null : k);
    const g = out.get(id) ?? { key: k, docs: [] };
    g.docs.push(d);
    out.set(id, g);
  }
  return [...out.values()];
}

const num = (docs: Doc[], f: string) =>
  docs.map((d) => d[f]).filter((v): v is number => typeof v === 'number');
const totals = (docs: Doc[]) => num(docs, 'total');
const avg = (xs: number[]) => (xs.length === 0 ? null : sum(xs) / xs.length);
const byStatus = groups(orders, (o) => o.status as string);
const byCreated = [...orders].sort(
  (a, b) => (a.createdAt as Date).getTime() - (b.createdAt as Date).getTime(),
);
const cityOf = (d: Doc) => ((d.address as Doc | undefined)?.city as string | undefined) ?? null;

/** MongoDB's order of the scalar types: null and missing, numbers, strings (binary), booleans. */
function bsonScalarOrder(a: unknown, b: unknown): number {
  const rank = (v: unknown) =>
    v === null || v === undefined ? 1 : typeof v === 'number' ? 2 : typeof v === 'string' ? 3 : 8;
  const [ra, rb] = [rank(a), rank(b)];
  if (ra !== rb) return ra - rb;
  if (ra === 1) return 0;
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** Orders without the one whose priority is an array (SQL groups and sorts scalars only; see pipeline-plan.ts). */
const scalarPriority = orders.filter((o) => !Array.isArray(o.priority));
const byPriority = groups(scalarPriority, (o) => o.priority).map((g) => ({
  _id: g.key ?? null,
  n: g.docs.length,
  discount: sum(num(g.docs, 'discount')),
  meanDiscount: avg(num(g.docs, 'discount')),
  nos: avg(num(g.docs, 'no')),
}));
const priorityGroup = [
  { $match: { no: { $ne: 'o11' } } },
  {
    $group: {
      _id: '$priority',
      n: { $sum: 1 },
      discount: { $sum: '$discount' },
      meanDiscount: { $avg: '$discount' },
      nos: { $avg: '$no' },
    },
  },
];

export const groupCases: CorpusCase[] = [
  unordered(
    'orders',
    '$group count per status with $sum: 1',
    [{ $group: { _id: '$status', n: { $sum: 1 } } }],
    byStatus.map((g) => ({ _id: g.key, n: g.docs.length })),
  ),
  unordered(
    'orders',
    '$group five accumulators at once',
    [
      {
        $group: {
          _id: '$status',
          count: { $sum: 1 },
          revenue: { $sum: '$total' },
          mean: { $avg: '$total' },
          lowest: { $min: '$total' },
          highest: { $max: '$total' },
        },
      },
    ],
    byStatus.map((g) => ({
      _id: g.key,
      count: g.docs.length,
      revenue: sum(totals(g.docs)),
      mean: avg(totals(g.docs)),
      lowest: Math.min(...totals(g.docs)),
      highest: Math.max(...totals(g.docs)),
    })),
    'FerretDB 1.24 returned 0 for every accumulator after the first',
  ),
  unordered(
    'orders',
    '$group _id null over everything',
    [{ $group: { _id: null, n: { $sum: 1 }, total: { $sum: '$total' }, avg: { $avg: '$total' } } }],
    [{ _id: null, n: 12, total: sum(totals(orders)), avg: avg(totals(orders)) }],
  ),
  unordered(
    'orders',
    '$group accumulator $count',
    [{ $group: { _id: '$status', n: { $count: {} } } }],
    byStatus.map((g) => ({ _id: g.key, n: g.docs.length })),
  ),
  unordered(
    'orders',
    '$group $first and $last follow the sorted input',
    [
      { $sort: { createdAt: 1 } },
      { $group: { _id: '$status', first: { $first: '$no' }, last: { $last: '$no' } } },
    ],
    groups(byCreated, (o) => o.status).map((g) => ({
      _id: g.key,
      first: g.docs[0]?.no,
      last: g.docs[g.docs.length - 1]?.no,
    })),
  ),
  unordered(
    'orders',
    '$group $push keeps input order',
    [{ $sort: { createdAt: -1 } }, { $group: { _id: '$status', nos: { $push: '$no' } } }],
    groups([...byCreated].reverse(), (o) => o.status).map((g) => ({
      _id: g.key,
      nos: g.docs.map((d) => d.no),
    })),
  ),
  unordered(
    'orders',
    '$group $push of an object expression',
    [
      { $match: { status: 'cancelled' } },
      { $sort: { no: 1 } },
      { $group: { _id: '$status', lines: { $push: { no: '$no', t: '$total' } } } },
    ],
    [
      {
        _id: 'cancelled',
        lines: [
          { no: 'o11', t: 80 },
          { no: 'o4', t: 300 },
        ],
      },
    ],
  ),
  unordered(
    'orders',
    '$group $push of a missing field skips it',
    [
      { $match: { status: 'new' } },
      { $sort: { no: 1 } },
      { $group: { _id: null, d: { $push: '$discount' } } },
    ],
    [{ _id: null, d: [] }],
  ),
  unordered(
    'orders',
    '$group $addToSet (sorted afterwards: sets have no order)',
    [
      { $group: { _id: '$status', cities: { $addToSet: '$address.city' } } },
      { $set: { cities: { $sortArray: { input: '$cities', sortBy: 1 } } } },
    ],
    byStatus.map((g) => ({
      _id: g.key,
      cities: [...new Set(g.docs.map(cityOf).filter((c) => c !== null))].sort(),
    })),
  ),
  unordered(
    'orders',
    '$group by a nested field, missing grouped as null',
    [{ $group: { _id: '$address.city', n: { $sum: 1 } } }],
    groups(orders, cityOf).map((g) => ({ _id: g.key, n: g.docs.length })),
  ),
  unordered(
    'orders',
    '$group by a compound key',
    [
      { $match: { status: { $in: ['paid', 'shipped'] } } },
      { $group: { _id: { s: '$status', c: '$address.city' }, n: { $sum: 1 } } },
    ],
    [
      { _id: { s: 'paid', c: 'Paris' }, n: 2 },
      { _id: { s: 'paid', c: 'Madrid' }, n: 1 },
      { _id: { s: 'paid', c: 'Berlin' }, n: 1 },
      { _id: { s: 'shipped', c: 'Lyon' }, n: 1 },
      { _id: { s: 'shipped', c: 'Madrid' }, n: 1 },
      { _id: { s: 'shipped', c: 'Berlin' }, n: 1 },
    ],
  ),
  unordered(
    'orders',
    '$group by an array value (not its elements)',
    [{ $match: { tags: { $in: ['gift', 'bulk'] } } }, { $group: { _id: '$tags', n: { $sum: 1 } } }],
    [
      { _id: ['gift', 'express'], n: 1 },
      { _id: ['bulk'], n: 1 },
      { _id: ['gift'], n: 2 },
      { _id: ['bulk', 'express'], n: 1 },
      { _id: ['gift', 'fragile', 'express'], n: 1 },
    ],
  ),
  unordered(
    'orders',
    '$group by a computed boolean',
    [{ $group: { _id: { $gt: ['$total', 100] }, n: { $sum: 1 } } }],
    [
      { _id: true, n: 3 },
      { _id: false, n: 9 },
    ],
  ),
  unordered(
    'orders',
    '$group by year and month',
    [{ $group: { _id: { y: { $year: '$createdAt' }, m: { $month: '$createdAt' } }, n: { $sum: 1 } } }],
    groups(orders, (o) => (o.createdAt as Date).getUTCMonth() + 1).map((g) => ({
      _id: { y: 2024, m: g.key },
      n: g.docs.length,
    })),
  ),
  unordered(
    'orders',
    '$group by $dateToString',
    [
      {
        $group: { _id: { $dateToString: { format: '%Y-%m', date: '$createdAt' } }, sum: { $sum: '$total' } },
      },
    ],
    groups(orders, (o) => (o.createdAt as Date).toISOString().slice(0, 7)).map((g) => ({
      _id: g.key,
      sum: sum(totals(g.docs)),
    })),
  ),
  unordered(
    'orders',
    '$sum and $avg skip non-numeric values',
    [
      {
        $group: {
          _id: null,
          s: { $sum: '$priority' },
          a: { $avg: '$priority' },
          n: { $sum: '$nothing' },
          m: { $avg: '$nothing' },
        },
      },
    ],
    [{ _id: null, s: 1 + 2 + 3 + 1.5 + 2, a: (1 + 2 + 3 + 1.5 + 2) / 5, n: 0, m: null }],
    'o11.priority is an array: $sum/$avg in $group skip arrays, like strings and booleans',
  ),
  unordered(
    'orders',
    '$sum in $group skips an array field',
    [{ $group: { _id: null, q: { $sum: '$items.qty' } } }],
    [{ _id: null, q: 0 }],
    'items.qty resolves to an array for every order, and $group $sum ignores arrays',
  ),
  unordered(
    'orders',
    '$min and $max across types follow BSON order and skip null',
    [{ $group: { _id: null, lo: { $min: '$priority' }, hi: { $max: '$priority' } } }],
    [{ _id: null, lo: 1, hi: true }],
    'numbers < strings < arrays < booleans: the max is the boolean true',
  ),
  unordered(
    'orders',
    '$min and $max of dates',
    [{ $group: { _id: null, first: { $min: '$shippedAt' }, last: { $max: '$shippedAt' } } }],
    [{ _id: null, first: new Date('2024-01-07T16:00:00Z'), last: new Date('2024-06-20T11:00:00Z') }],
  ),
  unordered(
    'orders',
    '$min of an all-missing field is null',
    [
      { $match: { status: 'new' } },
      { $group: { _id: null, m: { $min: '$discount' }, x: { $max: '$discount' } } },
    ],
    [{ _id: null, m: null, x: null }],
  ),
  unordered(
    'orders',
    '$sum of an expression per group',
    [{ $group: { _id: '$status', net: { $sum: { $subtract: ['$total', { $ifNull: ['$discount', 0] }] } } } }],
    byStatus.map((g) => ({
      _id: g.key,
      net: sum(g.docs.map((d) => (d.total as number) - ((d.discount as number | null | undefined) ?? 0))),
    })),
  ),
  unordered(
    'orders',
    '$group then having ($match on an accumulator)',
    [{ $group: { _id: '$status', n: { $sum: 1 } } }, { $match: { n: { $gte: 3 } } }],
    byStatus.filter((g) => g.docs.length >= 3).map((g) => ({ _id: g.key, n: g.docs.length })),
  ),
  ordered(
    'orders',
    '$group then $sort by the accumulator',
    [{ $group: { _id: '$status', revenue: { $sum: '$total' } } }, { $sort: { revenue: -1 } }],
    byStatus.map((g) => ({ _id: g.key, revenue: sum(totals(g.docs)) })).sort((a, b) => b.revenue - a.revenue),
  ),
  unordered(
    'orders',
    '$group with $$ROOT pushed',
    [
      { $match: { no: { $in: ['o2', 'o11'] } } },
      { $sort: { no: 1 } },
      { $group: { _id: '$customer', docs: { $push: '$$ROOT' } } },
    ],
    [{ _id: 'c2', docs: [orders[10], orders[1]] }],
  ),
  unordered(
    'orders',
    '$maxN and $minN',
    [
      {
        $group: {
          _id: '$status',
          top: { $maxN: { input: '$total', n: 2 } },
          low: { $minN: { input: '$total', n: 2 } },
        },
      },
    ],
    byStatus.map((g) => {
      const t = totals(g.docs).sort((a, b) => a - b);
      return { _id: g.key, top: [...t].reverse().slice(0, 2), low: t.slice(0, 2) };
    }),
  ),
  unordered(
    'orders',
    '$topN and $bottomN with sortBy',
    [
      {
        $group: {
          _id: '$status',
          top: { $topN: { n: 1, sortBy: { total: -1 }, output: '$no' } },
          bottom: { $bottomN: { n: 1, sortBy: { total: -1 }, output: '$no' } },
        },
      },
    ],
    byStatus.map((g) => {
      const t = [...g.docs].sort((a, b) => (b.total as number) - (a.total as number));
      return { _id: g.key, top: [t[0]?.no], bottom: [t[t.length - 1]?.no] };
    }),
  ),
  unordered(
    'orders',
    '$firstN and $lastN after a sort',
    [
      { $sort: { total: 1 } },
      {
        $group: {
          _id: null,
          cheap: { $firstN: { input: '$no', n: 2 } },
          dear: { $lastN: { input: '$no', n: 2 } },
        },
      },
    ],
    [{ _id: null, cheap: ['o6', 'o10'], dear: ['o7', 'o4'] }],
  ),
  unordered(
    'orders',
    '$stdDevPop',
    [{ $match: { status: 'cancelled' } }, { $group: { _id: null, sd: { $stdDevPop: '$total' } } }],
    [{ _id: null, sd: 110 }],
  ),
  unordered(
    'orders',
    '$mergeObjects accumulator, later documents win',
    [
      { $match: { no: { $in: ['o2', 'o11'] } } },
      { $sort: { no: -1 } },
      { $group: { _id: null, a: { $mergeObjects: '$address' } } },
    ],
    [{ _id: null, a: { city: 'Lyon', zip: '69001' } }],
  ),
  unordered(
    'customers',
    '$group per tier with $push and $avg of per-document averages',
    [
      { $sort: { no: 1 } },
      { $group: { _id: '$tier', names: { $push: '$name' }, meanScore: { $avg: { $avg: '$scores' } } } },
    ],
    groups(customers, (c) => (c.tier as string | null) ?? null).map((g) => {
      const perDoc = g.docs
        .map((c) => c.scores as number[] | undefined)
        .filter((s): s is number[] => Array.isArray(s) && s.length > 0)
        .map((s) => sum(s) / s.length);
      return { _id: g.key, names: g.docs.map((c) => c.name), meanScore: avg(perDoc) };
    }),
  ),
  unordered(
    'customers',
    '$group $sum of booleans is zero',
    [{ $group: { _id: null, v: { $sum: '$vip' }, n: { $sum: { $cond: ['$vip', 1, 0] } } } }],
    [{ _id: null, v: 0, n: 2 }],
  ),
  unordered(
    'products',
    '$group per category, several accumulators with missing and mixed values',
    [
      {
        $group: {
          _id: '$category',
          stock: { $sum: '$stock' },
          price: { $avg: '$price' },
          best: { $max: '$rating' },
          worst: { $min: '$rating' },
          n: { $sum: 1 },
        },
      },
    ],
    [
      { _id: 'office', stock: 112, price: (10 + 25 + 30) / 3, best: 4.5, worst: 4, n: 3 },
      { _id: 'furniture', stock: 10, price: (100 + 50 + 80) / 3, best: 5, worst: 2, n: 3 },
      { _id: 'lighting', stock: 520, price: (45.25 + 3.5) / 2, best: '4', worst: '4', n: 2 },
      { _id: null, stock: 999, price: 12.75, best: null, worst: null, n: 1 },
    ],
    "lighting's only rating is the string '4' (p8 has none): $min/$max return it",
  ),
  unordered(
    'products',
    '$group $sum of a product of fields (missing operand gives null, skipped)',
    [{ $group: { _id: '$category', value: { $sum: { $multiply: ['$price', '$stock'] } } } }],
    groups(products, (p) => (p.category as string | null) ?? null).map((g) => ({
      _id: g.key,
      value: sum(
        g.docs
          .filter((p) => typeof p.stock === 'number')
          .map((p) => (p.price as number) * (p.stock as number)),
      ),
    })),
  ),
  unordered(
    'products',
    '$group by a computed bucket key with $cond',
    [{ $group: { _id: { $cond: [{ $gte: ['$price', 50] }, 'dear', 'cheap'] }, skus: { $push: '$no' } } }],
    [
      { _id: 'cheap', skus: ['p1', 'p2', 'p3', 'p6', 'p8', 'p9'] },
      { _id: 'dear', skus: ['p4', 'p5', 'p7'] },
    ],
  ),
  unordered(
    'products',
    '$group on an empty input gives no rows',
    [{ $match: { no: 'none' } }, { $group: { _id: null, n: { $sum: 1 } } }],
    [],
  ),
  unordered(
    'orders',
    '$group then $group (two levels)',
    [
      { $group: { _id: { s: '$status', c: '$customer' } } },
      { $group: { _id: '$_id.s', customers: { $sum: 1 } } },
    ],
    byStatus.map((g) => ({
      _id: g.key,
      customers: new Set(g.docs.map((d) => JSON.stringify(d.customer ?? null))).size,
    })),
  ),
  ordered(
    'orders',
    '$group by a field of mixed scalar types, sorted in BSON order (missing and null one group)',
    [...priorityGroup, { $sort: { _id: 1 } }],
    [...byPriority].sort((a, b) => bsonScalarOrder(a._id, b._id)),
    'Keys 1, 1.5, 2, 3, "1", "2", "high", true, null (o6) and missing (o9): "1" is not 1, true is not 1; ' +
      '$sum of a field with numbers, null and missing counts the numbers only (0 when none), ' +
      '$avg of no numbers (the strings of `no`) is null',
  ),
  ordered(
    'orders',
    '$group by mixed types, sorted by count descending then key, $skip and $limit',
    [...priorityGroup, { $sort: { n: -1, _id: -1 } }, { $skip: 1 }, { $limit: 3 }],
    [...byPriority].sort((a, b) => b.n - a.n || bsonScalarOrder(b._id, a._id)).slice(1, 4),
  ),
  ordered(
    'orders',
    '$group then $count of the groups',
    [...priorityGroup, { $count: 'groups' }],
    [{ groups: byPriority.length }],
  ),
  unordered(
    'orders',
    '$group of an empty input, $sum of a number and $avg, gives no rows',
    [{ $match: { status: 'none' } }, { $group: { _id: '$status', n: { $sum: 2 }, m: { $avg: '$total' } } }],
    [],
  ),
  ordered(
    'orders',
    '$sort by a field of mixed scalar types then $skip and $limit',
    [
      { $match: { no: { $ne: 'o11' } } },
      { $sort: { priority: 1, no: 1 } },
      { $skip: 2 },
      { $limit: 6 },
      keepNo,
    ],
    [...scalarPriority]
      .sort((a, b) => bsonScalarOrder(a.priority, b.priority) || bsonScalarOrder(a.no, b.no))
      .slice(2, 8)
      .map((o) => ({ no: o.no })),
  ),
];
