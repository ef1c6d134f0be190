/**
 * `$sort` (BSON type order across mixed types, null and missing together and first, arrays by
 * their smallest element ascending and largest descending, empty arrays before null, compound
 * keys, dates, binary string order), `$skip`, `$limit`, `$count`, `$sample` (size only).
 */
import { orders, products } from '../datasets';
import { keepNo, nos, ordered, unordered } from '../helpers';
import type { CorpusCase } from '../types';

const byTotal = [...orders]
  .sort((a, b) => (a.total as number) - (b.total as number))
  .map((o) => o.no as string);
const byPrice = [...products]
  .sort((a, b) => (a.price as number) - (b.price as number))
  .map((p) => p.no as string);

export const sortCases: CorpusCase[] = [
  ordered('orders', '$sort number ascending', [{ $sort: { total: 1 } }, keepNo], nos(...byTotal)),
  ordered(
    'orders',
    '$sort number descending',
    [{ $sort: { total: -1 } }, keepNo],
    nos(...[...byTotal].reverse()),
  ),
  ordered(
    'orders',
    '$sort date descending',
    [{ $sort: { createdAt: -1 } }, keepNo],
    nos(...orders.map((o) => o.no as string).reverse()),
  ),
  ordered('products', '$sort by price', [{ $sort: { price: 1 } }, keepNo], nos(...byPrice)),
  ordered(
    'orders',
    '$sort compound: string then number descending',
    [{ $sort: { status: 1, total: -1 } }, keepNo],
    nos('o4', 'o11', 'o3', 'o10', 'o6', 'o7', 'o1', 'o5', 'o9', 'o8', 'o12', 'o2'),
  ),
  ordered(
    'customers',
    '$sort binary string order (uppercase before lowercase, accents after ASCII)',
    [{ $sort: { name: 1 } }, keepNo],
    nos('c1', 'c2', 'c3', 'c5', 'c6', 'c7', 'c8', 'c4'),
  ),
  ordered(
    'customers',
    '$sort nested field with null parent first',
    [{ $sort: { 'address.city': 1, no: 1 } }, keepNo],
    nos('c5', 'c3', 'c7', 'c2', 'c6', 'c1', 'c4', 'c8'),
  ),
  ordered(
    'mixed',
    '$sort mixed types ascending (BSON order)',
    [{ $sort: { v: 1, no: 1 } }, keepNo],
    nos('m15', 'm1', 'm2', 'm5', 'm3', 'm9', 'm4', 'm7', 'm6', 'm13', 'm14', 'm8', 'm11', 'm10', 'm12'),
    'empty array < null = missing < numbers (an array sorts by its smallest element) < strings < objects < booleans < dates',
  ),
  ordered(
    'mixed',
    '$sort mixed types descending (arrays by their largest element)',
    [{ $sort: { v: -1, no: 1 } }, keepNo],
    nos('m12', 'm10', 'm11', 'm8', 'm14', 'm13', 'm6', 'm7', 'm4', 'm9', 'm3', 'm5', 'm1', 'm2', 'm15'),
    'descending, [2, 1] sorts as 2 (its largest element), between 2.5 and 1; mingo alone would sort it as 1',
  ),
  ordered(
    'orders',
    '$sort on an array field: smallest element ascending',
    [{ $match: { tags: { $type: 'array' } } }, { $sort: { tags: 1, no: 1 } }, keepNo],
    nos('o3', 'o2', 'o7', 'o1', 'o4', 'o8', 'o11', 'o5', 'o9'),
    'o3 has an empty array (first); then by smallest tag: bulk, express, gift, split; ties by no (string order: o11 < o5)',
  ),
  ordered(
    'orders',
    '$sort on an array field: largest element descending',
    [{ $match: { tags: { $type: 'array' } } }, { $sort: { tags: -1, no: 1 } }, keepNo],
    nos('o9', 'o1', 'o11', 'o5', 'o8', 'o4', 'o7', 'o2', 'o3'),
    'largest tags: split, gift, gift, fragile, gift... (o1 [gift, express] -> gift; o4 [express, fragile] -> fragile)',
  ),
  ordered(
    'orders',
    '$sort by a path through an array of documents',
    [{ $sort: { 'items.price': -1, no: 1 } }, keepNo],
    nos('o1', 'o4', 'o5', 'o11', 'o7', 'o8', 'o12', 'o9', 'o3', 'o10', 'o2', 'o6'),
    'descending uses each order\u2019s highest item price; o6 has no items (an empty array sorts last descending)',
  ),
  ordered(
    'orders',
    '$sort mixed-type field ascending',
    [{ $sort: { priority: 1, no: 1 } }, keepNo],
    nos('o6', 'o9', 'o1', 'o11', 'o7', 'o10', 'o3', 'o5', 'o8', 'o12', 'o2', 'o4'),
    'null and missing first; o11 [1, 5] sorts as 1 ascending; numbers; strings "1" < "2" < "high"; true last',
  ),
  ordered(
    'orders',
    '$sort then $limit',
    [{ $sort: { total: -1 } }, { $limit: 3 }, keepNo],
    nos('o4', 'o7', 'o1'),
  ),
  ordered(
    'orders',
    '$sort then $skip then $limit',
    [{ $sort: { total: 1 } }, { $skip: 2 }, { $limit: 3 }, keepNo],
    nos(...byTotal.slice(2, 5)),
  ),
  ordered('orders', '$skip past the end', [{ $sort: { total: 1 } }, { $skip: 50 }, keepNo], []),
  ordered(
    'orders',
    '$limit larger than the input',
    [{ $sort: { total: 1 } }, { $limit: 100 }, keepNo],
    nos(...byTotal),
  ),
  ordered(
    'orders',
    '$limit then $sort sorts only the kept rows',
    [{ $sort: { createdAt: 1 } }, { $limit: 4 }, { $sort: { total: -1 } }, keepNo],
    nos('o4', 'o1', 'o2', 'o3'),
  ),
  unordered('orders', '$count', [{ $count: 'n' }], [{ n: 12 }]),
  unordered(
    'orders',
    '$count after $match',
    [{ $match: { status: 'paid' } }, { $count: 'paid' }],
    [{ paid: 4 }],
  ),
  unordered(
    'orders',
    '$count of nothing returns no row',
    [{ $match: { status: 'nope' } }, { $count: 'n' }],
    [],
  ),
  unordered('customers', '$count after $skip', [{ $skip: 5 }, { $count: 'rest' }], [{ rest: 3 }]),
  unordered('orders', '$sample size', [{ $sample: { size: 3 } }, { $count: 'n' }], [{ n: 3 }]),
  unordered(
    'orders',
    '$sample larger than the input',
    [{ $sample: { size: 50 } }, { $count: 'n' }],
    [{ n: 12 }],
  ),
  ordered(
    'customers',
    '$sort by date with missing first',
    [{ $sort: { joinedAt: 1 } }, keepNo],
    nos('c5', 'c1', 'c2', 'c3', 'c4', 'c6', 'c7', 'c8'),
  ),
  ordered(
    'products',
    '$sort by a mixed number/string/null field descending',
    [{ $sort: { rating: -1, no: 1 } }, keepNo],
    nos('p6', 'p5', 'p1', 'p2', 'p4', 'p7', 'p3', 'p8', 'p9'),
    "the string '4' sorts after every number; null (p3) and missing (p8, p9) last, ties by no",
  ),
  ordered(
    'orders',
    '$sort by a computed field',
    [{ $addFields: { n: { $size: '$items' } } }, { $sort: { n: -1, total: -1 } }, keepNo],
    nos('o1', 'o8', 'o4', 'o7', 'o5', 'o11', 'o9', 'o12', 'o2', 'o3', 'o10', 'o6'),
  ),
];
