/**
 * `$lookup` (equality with MongoDB's array semantics on both sides and null matching missing;
 * pipeline with `let` and `$expr`, where an array is not a set of candidates; uncorrelated
 * pipelines; the combined localField/foreignField + pipeline form; nesting), `$unionWith` and
 * `$graphLookup`. Joined arrays whose order MongoDB does not define are sorted in the pipeline.
 */
import { customers, products } from '../datasets';
import { ordered, unordered } from '../helpers';
import type { CorpusCase } from '../types';

/** Projects `no` and the `no` (or another field) of every joined document. */
const joinedNos = (as: string, field = 'no') => ({ $project: { _id: 0, no: 1, [as]: `$${as}.${field}` } });
const only = (...nos: string[]) => ({ $match: { no: { $in: nos } } });
const sortedBy = (path: string, sortBy: Record<string, 1 | -1> | 1) => ({
  $set: { [path]: { $sortArray: { input: `$${path}`, sortBy } } },
});

export const lookupCases: CorpusCase[] = [
  unordered(
    'orders',
    '$lookup equality, local array matches any element, null and missing match nothing here',
    [
      { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'cust' } },
      joinedNos('cust', 'name'),
    ],
    [
      { no: 'o1', cust: ['Ada'] },
      { no: 'o2', cust: ['Brian'] },
      { no: 'o3', cust: ['Ada'] },
      { no: 'o4', cust: ['Chloé'] },
      { no: 'o5', cust: ['dan'] },
      { no: 'o6', cust: [] },
      { no: 'o7', cust: [] },
      { no: 'o8', cust: ['Farid'] },
      { no: 'o9', cust: ['Ada', 'Gus'] },
      { no: 'o10', cust: [] },
      { no: 'o11', cust: ['Brian'] },
      { no: 'o12', cust: ['Gus'] },
    ],
  ),
  unordered(
    'customers',
    '$lookup equality into an array-valued foreign field',
    [
      { $lookup: { from: 'orders', localField: 'no', foreignField: 'customer', as: 'orders' } },
      joinedNos('orders'),
    ],
    [
      { no: 'c1', orders: ['o1', 'o3', 'o9'] },
      { no: 'c2', orders: ['o2', 'o11'] },
      { no: 'c3', orders: ['o4'] },
      { no: 'c4', orders: ['o5'] },
      { no: 'c5', orders: [] },
      { no: 'c6', orders: ['o8'] },
      { no: 'c7', orders: ['o9', 'o12'] },
      { no: 'c8', orders: [] },
    ],
  ),
  unordered(
    'orders',
    '$lookup equality: null and missing local values match null and missing foreign values',
    [
      only('o1', 'o6', 'o7'),
      { $lookup: { from: 'products', localField: 'customer', foreignField: 'category', as: 'p' } },
      joinedNos('p'),
    ],
    [
      { no: 'o1', p: [] },
      { no: 'o6', p: ['p9'] },
      { no: 'o7', p: ['p9'] },
    ],
  ),
  unordered(
    'orders',
    '$lookup on a path through an array of documents',
    [
      only('o1', 'o8', 'o10'),
      { $lookup: { from: 'products', localField: 'items.sku', foreignField: 'no', as: 'prods' } },
      joinedNos('prods', 'name'),
    ],
    [
      { no: 'o1', prods: ['Pen', 'Notebook'] },
      { no: 'o8', prods: ['Pen', 'Lamp'] },
      { no: 'o10', prods: ['Gift card'] },
    ],
  ),
  unordered(
    'products',
    '$lookup self-join on an array field',
    [
      only('p1', 'p4', 'p9'),
      { $lookup: { from: 'products', localField: 'no', foreignField: 'related', as: 'by' } },
      joinedNos('by'),
    ],
    [
      { no: 'p1', by: ['p2', 'p3'] },
      { no: 'p4', by: ['p3', 'p5', 'p7'] },
      { no: 'p9', by: [] },
    ],
  ),
  unordered(
    'orders',
    '$lookup then $unwind then $group',
    [
      { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'c' } },
      { $unwind: '$c' },
      { $group: { _id: '$c.tier', revenue: { $sum: '$total' } } },
    ],
    [
      { _id: 'gold', revenue: 120.5 + 15 + 60 + 60 + 300 + 45 },
      { _id: 'silver', revenue: 40 + 80 + 75.25 },
      { _id: 'bronze', revenue: 99.99 },
    ],
  ),
  unordered(
    'orders',
    '$lookup pipeline with let: $expr equality does not match array elements',
    [
      only('o1', 'o6', 'o7', 'o9'),
      {
        $lookup: {
          from: 'customers',
          let: { c: '$customer' },
          pipeline: [{ $match: { $expr: { $eq: ['$no', '$$c'] } } }, { $project: { _id: 0, name: 1 } }],
          as: 'cust',
        },
      },
      joinedNos('cust', 'name'),
    ],
    [
      { no: 'o1', cust: ['Ada'] },
      { no: 'o6', cust: [] },
      { no: 'o7', cust: [] },
      { no: 'o9', cust: [] },
    ],
  ),
  unordered(
    'orders',
    '$lookup uncorrelated pipeline',
    [
      only('o1', 'o2'),
      {
        $lookup: {
          from: 'customers',
          pipeline: [{ $match: { tier: 'gold' } }, { $project: { _id: 0, no: 1 } }],
          as: 'gold',
        },
      },
      joinedNos('gold'),
    ],
    [
      { no: 'o1', gold: ['c1', 'c3', 'c7'] },
      { no: 'o2', gold: ['c1', 'c3', 'c7'] },
    ],
  ),
  unordered(
    'customers',
    '$lookup pipeline with let and two conditions',
    [
      {
        $lookup: {
          from: 'orders',
          let: { c: '$no' },
          pipeline: [
            { $match: { $expr: { $and: [{ $eq: ['$customer', '$$c'] }, { $gte: ['$total', 50] }] } } },
            { $project: { _id: 0, no: 1 } },
          ],
          as: 'big',
        },
      },
      joinedNos('big'),
    ],
    [
      { no: 'c1', big: ['o1'] },
      { no: 'c2', big: ['o11'] },
      { no: 'c3', big: ['o4'] },
      { no: 'c4', big: ['o5'] },
      { no: 'c5', big: [] },
      { no: 'c6', big: ['o8'] },
      { no: 'c7', big: [] },
      { no: 'c8', big: [] },
    ],
  ),
  unordered(
    'customers',
    '$lookup combined form: equality first, then the pipeline on the matches only',
    [
      {
        $lookup: {
          from: 'orders',
          localField: 'no',
          foreignField: 'customer',
          pipeline: [{ $match: { status: { $ne: 'cancelled' } } }, { $project: { _id: 0, no: 1 } }],
          as: 'open',
        },
      },
      joinedNos('open'),
    ],
    [
      { no: 'c1', open: ['o1', 'o3', 'o9'] },
      { no: 'c2', open: ['o2'] },
      { no: 'c3', open: [] },
      { no: 'c4', open: ['o5'] },
      { no: 'c5', open: [] },
      { no: 'c6', open: ['o8'] },
      { no: 'c7', open: ['o9', 'o12'] },
      { no: 'c8', open: [] },
    ],
    'mingo alone runs the pipeline over the whole foreign collection once any key matches',
  ),
  unordered(
    'customers',
    '$lookup combined form with let',
    [
      only('c2', 'c5'),
      {
        $lookup: {
          from: 'orders',
          localField: 'no',
          foreignField: 'customer',
          let: { tier: '$tier' },
          pipeline: [{ $project: { _id: 0, no: 1, tier: '$$tier' } }],
          as: 'o',
        },
      },
      { $project: { _id: 0, no: 1, o: 1 } },
    ],
    [
      {
        no: 'c2',
        o: [
          { no: 'o2', tier: 'silver' },
          { no: 'o11', tier: 'silver' },
        ],
      },
      { no: 'c5', o: [] },
    ],
  ),
  unordered(
    'orders',
    '$lookup nested inside a lookup pipeline',
    [
      only('o5'),
      {
        $lookup: {
          from: 'customers',
          let: { c: '$customer' },
          pipeline: [
            { $match: { $expr: { $eq: ['$no', '$$c'] } } },
            { $lookup: { from: 'customers', localField: 'referredBy', foreignField: 'no', as: 'ref' } },
            { $project: { _id: 0, name: 1, ref: '$ref.name' } },
          ],
          as: 'cust',
        },
      },
      { $project: { _id: 0, cust: 1 } },
    ],
    [{ cust: [{ name: 'dan', ref: ['Brian'] }] }],
  ),
  unordered(
    'orders',
    '$lookup nested pipeline reads the outer let variable',
    [
      only('o4'),
      {
        $lookup: {
          from: 'customers',
          let: { t: '$total' },
          pipeline: [
            { $match: { tier: 'gold' } },
            {
              $lookup: {
                from: 'orders',
                let: { c: '$no' },
                pipeline: [
                  {
                    $match: { $expr: { $and: [{ $eq: ['$customer', '$$c'] }, { $lt: ['$total', '$$t'] }] } },
                  },
                  { $project: { _id: 0, no: 1 } },
                ],
                as: 'cheaper',
              },
            },
            { $project: { _id: 0, no: 1, cheaper: '$cheaper.no' } },
          ],
          as: 'gold',
        },
      },
      { $project: { _id: 0, gold: 1 } },
    ],
    [
      {
        gold: [
          { no: 'c1', cheaper: ['o1', 'o3'] },
          { no: 'c3', cheaper: [] },
          { no: 'c7', cheaper: ['o12'] },
        ],
      },
    ],
  ),
  unordered(
    'orders',
    '$lookup into a dotted field',
    [
      only('o2'),
      { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'meta.c' } },
      { $project: { _id: 0, meta: 1 } },
    ],
    [{ meta: { c: [customers[1]] } }],
  ),
  unordered(
    'orders',
    '$lookup overwrites an existing field',
    [
      only('o2'),
      { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'customer' } },
      { $project: { _id: 0, c: '$customer.name' } },
    ],
    [{ c: ['Brian'] }],
  ),
  unordered(
    'orders',
    '$lookup with an empty pipeline joins the whole collection',
    [
      only('o1'),
      { $lookup: { from: 'products', pipeline: [], as: 'all' } },
      { $project: { _id: 0, n: { $size: '$all' } } },
    ],
    [{ n: products.length }],
  ),
  unordered(
    'orders',
    '$lookup then $match on the joined array',
    [
      { $lookup: { from: 'customers', localField: 'customer', foreignField: 'no', as: 'c' } },
      { $match: { 'c.vip': true } },
      { $project: { _id: 0, no: 1 } },
    ],
    [{ no: 'o1' }, { no: 'o3' }, { no: 'o8' }, { no: 'o9' }],
  ),
  unordered(
    'orders',
    '$unionWith a collection',
    [{ $unionWith: 'customers' }, { $project: { _id: 0, no: 1 } }],
    [...Array.from({ length: 12 }, (_, i) => ({ no: `o${i + 1}` })), ...customers.map((c) => ({ no: c.no }))],
  ),
  unordered(
    'orders',
    '$unionWith with a pipeline',
    [
      { $match: { status: 'new' } },
      { $unionWith: { coll: 'products', pipeline: [{ $match: { category: 'lighting' } }] } },
      { $project: { _id: 0, no: 1 } },
    ],
    [{ no: 'o3' }, { no: 'o6' }, { no: 'o10' }, { no: 'p6' }, { no: 'p8' }],
  ),
  unordered(
    'orders',
    '$unionWith twice then $group',
    [
      { $unionWith: 'products' },
      { $unionWith: 'customers' },
      { $group: { _id: { $substrCP: ['$no', 0, 1] }, n: { $sum: 1 } } },
    ],
    [
      { _id: 'o', n: 12 },
      { _id: 'p', n: 9 },
      { _id: 'c', n: 8 },
    ],
  ),
  unordered('orders', '$unionWith itself', [{ $unionWith: 'orders' }, { $count: 'n' }], [{ n: 24 }]),
  unordered(
    'orders',
    '$unionWith a pipeline containing a $lookup',
    [
      only('o1'),
      {
        $unionWith: {
          coll: 'customers',
          pipeline: [
            { $match: { no: 'c2' } },
            { $lookup: { from: 'orders', localField: 'no', foreignField: 'customer', as: 'o' } },
            { $project: { n: { $size: '$o' } } },
          ],
        },
      },
      { $project: { _id: 0, no: 1, n: 1 } },
    ],
    [{ no: 'o1' }, { n: 2 }],
  ),
  ordered(
    'orders',
    '$unionWith keeps the first input before the second',
    [
      only('o2'),
      { $project: { _id: 0, no: 1 } },
      {
        $unionWith: {
          coll: 'customers',
          pipeline: [{ $match: { no: 'c8' } }, { $project: { _id: 0, no: 1 } }],
        },
      },
    ],
    [{ no: 'o2' }, { no: 'c8' }],
  ),
];

const chain = { $map: { input: '$g', in: { n: '$$this.no', d: '$$this.d' } } };

export const graphLookupCases: CorpusCase[] = [
  unordered(
    'customers',
    '$graphLookup up a referral chain with depth',
    [
      only('c4', 'c5', 'c8'),
      {
        $graphLookup: {
          from: 'customers',
          startWith: '$referredBy',
          connectFromField: 'referredBy',
          connectToField: 'no',
          as: 'g',
          depthField: 'd',
        },
      },
      { $project: { _id: 0, no: 1, g: chain } },
      sortedBy('g', { d: 1 }),
    ],
    [
      {
        no: 'c4',
        g: [
          { n: 'c2', d: 0 },
          { n: 'c1', d: 1 },
        ],
      },
      {
        no: 'c5',
        g: [
          { n: 'c4', d: 0 },
          { n: 'c2', d: 1 },
          { n: 'c1', d: 2 },
        ],
      },
      {
        no: 'c8',
        g: [
          { n: 'c7', d: 0 },
          { n: 'c6', d: 1 },
        ],
      },
    ],
    'the order of the `as` array is not defined by MongoDB: the case sorts it by depth',
  ),
  unordered(
    'customers',
    '$graphLookup maxDepth 0',
    [
      only('c5'),
      {
        $graphLookup: {
          from: 'customers',
          startWith: '$referredBy',
          connectFromField: 'referredBy',
          connectToField: 'no',
          as: 'g',
          maxDepth: 0,
        },
      },
      joinedNos('g'),
    ],
    [{ no: 'c5', g: ['c4'] }],
  ),
  unordered(
    'customers',
    '$graphLookup down a tree',
    [
      only('c1', 'c6', 'c8'),
      {
        $graphLookup: {
          from: 'customers',
          startWith: '$no',
          connectFromField: 'no',
          connectToField: 'referredBy',
          as: 'g',
          depthField: 'd',
        },
      },
      { $project: { _id: 0, no: 1, g: chain } },
      sortedBy('g', { d: 1, n: 1 }),
    ],
    [
      {
        no: 'c1',
        g: [
          { n: 'c2', d: 0 },
          { n: 'c3', d: 0 },
          { n: 'c4', d: 1 },
          { n: 'c5', d: 2 },
        ],
      },
      {
        no: 'c6',
        g: [
          { n: 'c7', d: 0 },
          { n: 'c8', d: 1 },
        ],
      },
      { no: 'c8', g: [] },
    ],
  ),
  unordered(
    'customers',
    '$graphLookup restrictSearchWithMatch stops the traversal',
    [
      only('c1'),
      {
        $graphLookup: {
          from: 'customers',
          startWith: '$no',
          connectFromField: 'no',
          connectToField: 'referredBy',
          as: 'g',
          restrictSearchWithMatch: { vip: false },
        },
      },
      joinedNos('g'),
      sortedBy('g', 1),
    ],
    [{ no: 'c1', g: ['c2', 'c4'] }],
  ),
  unordered(
    'products',
    '$graphLookup over an array field, reaching the start document',
    [
      only('p3', 'p8'),
      {
        $graphLookup: {
          from: 'products',
          startWith: '$related',
          connectFromField: 'related',
          connectToField: 'no',
          as: 'g',
          depthField: 'd',
        },
      },
      { $project: { _id: 0, no: 1, g: chain } },
      sortedBy('g', { d: 1, n: 1 }),
    ],
    [
      {
        no: 'p3',
        g: [
          { n: 'p1', d: 0 },
          { n: 'p4', d: 0 },
          { n: 'p2', d: 1 },
          { n: 'p3', d: 1 },
          { n: 'p5', d: 1 },
          { n: 'p6', d: 2 },
        ],
      },
      { no: 'p8', g: [{ n: 'p6', d: 0 }] },
    ],
  ),
  unordered(
    'products',
    '$graphLookup maxDepth 1',
    [
      only('p3'),
      {
        $graphLookup: {
          from: 'products',
          startWith: '$related',
          connectFromField: 'related',
          connectToField: 'no',
          as: 'g',
          maxDepth: 1,
        },
      },
      joinedNos('g'),
      sortedBy('g', 1),
    ],
    [{ no: 'p3', g: ['p1', 'p2', 'p3', 'p4', 'p5'] }],
  ),
  unordered(
    'orders',
    '$graphLookup from another collection then count',
    [
      only('o12'),
      {
        $graphLookup: {
          from: 'customers',
          startWith: '$customer',
          connectFromField: 'referredBy',
          connectToField: 'no',
          as: 'g',
        },
      },
      { $project: { _id: 0, n: { $size: '$g' } } },
    ],
    [{ n: 2 }],
    'o12 -> c7 (depth 0) -> c6 (depth 1) -> c9, which does not exist',
  ),
];
