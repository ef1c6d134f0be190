/**
 * `$project`, `$addFields`/`$set`, `$unset` and the expression language: arithmetic (null and
 * missing propagate), conditionals, strings, arrays ($map/$filter/$reduce...), dates (UTC), types,
 * objects, and projection semantics (nested inclusion, exclusion, `$$REMOVE`, array paths).
 */
import { customers, idOf, orders } from '../datasets';
import { date, unordered } from '../helpers';
import type { CorpusCase, DatasetName } from '../types';

type Doc = Record<string, unknown>;

/** `$project` of computed fields on a few documents (by business key); rows name them by `no`. */
function computed(
  collection: DatasetName,
  name: string,
  fields: Doc,
  rows: Doc[],
  note?: string,
): CorpusCase {
  const only = rows.map((r) => r.no);
  return unordered(
    collection,
    name,
    [{ $match: { no: { $in: only } } }, { $project: { _id: 0, no: 1, ...fields } }],
    rows,
    note,
  );
}

const ord = (n: number) => orders[n - 1] as Doc;
const without = (doc: Doc, ...keys: string[]) =>
  Object.fromEntries(Object.entries(doc).filter(([k]) => !keys.includes(k)));

export const projectCases: CorpusCase[] = [
  // Arithmetic.
  computed('orders', '$add', { x: { $add: ['$total', 1] } }, [
    { no: 'o1', x: 121.5 },
    { no: 'o2', x: 41 },
    { no: 'o6', x: 1 },
  ]),
  computed('orders', '$add with null or missing is null', { x: { $add: ['$total', '$discount'] } }, [
    { no: 'o1', x: 125.5 },
    { no: 'o2', x: null },
    { no: 'o3', x: null },
  ]),
  computed('orders', '$add milliseconds to a date', { x: { $add: ['$createdAt', 86_400_000] } }, [
    { no: 'o1', x: date('2024-01-06T10:00:00Z') },
  ]),
  computed('orders', '$subtract', { x: { $subtract: ['$total', '$discount'] } }, [
    { no: 'o1', x: 115.5 },
    { no: 'o4', x: 270 },
    { no: 'o7', x: 250 },
  ]),
  computed(
    'orders',
    '$subtract two dates gives milliseconds',
    { x: { $subtract: ['$shippedAt', '$createdAt'] } },
    [
      { no: 'o1', x: 194_400_000 },
      { no: 'o2', x: 149_400_000 },
      { no: 'o3', x: null },
    ],
  ),
  computed('orders', '$multiply', { x: { $multiply: ['$total', 2] } }, [
    { no: 'o1', x: 241 },
    { no: 'o2', x: 80 },
  ]),
  computed('orders', '$divide', { x: { $divide: ['$total', 4] } }, [
    { no: 'o4', x: 75 },
    { no: 'o2', x: 10 },
  ]),
  computed('orders', '$mod', { x: { $mod: ['$total', 7] } }, [
    { no: 'o4', x: 6 },
    { no: 'o2', x: 5 },
  ]),
  computed(
    'orders',
    '$round half to even',
    { x: { $round: ['$total', 0] } },
    [
      { no: 'o1', x: 120 },
      { no: 'o8', x: 75 },
      { no: 'o7', x: 250 },
    ],
    'MongoDB rounds a value exactly halfway to the even neighbour: 120.5 -> 120',
  ),
  computed('orders', '$round to one decimal place', { x: { $round: ['$total', 1] } }, [{ no: 'o5', x: 100 }]),
  computed(
    'orders',
    '$trunc, $ceil and $floor',
    { t: { $trunc: '$total' }, c: { $ceil: '$total' }, f: { $floor: '$total' } },
    [
      { no: 'o1', t: 120, c: 121, f: 120 },
      { no: 'o8', t: 75, c: 76, f: 75 },
    ],
  ),
  computed('orders', '$abs of a difference', { x: { $abs: { $subtract: ['$total', 100] } } }, [
    { no: 'o1', x: 20.5 },
    { no: 'o2', x: 60 },
  ]),
  computed(
    'orders',
    '$pow and $sqrt',
    { p: { $pow: ['$total', 2] }, s: { $sqrt: { $multiply: ['$total', 10] } } },
    [{ no: 'o2', p: 1600, s: 20 }],
  ),
  computed('orders', '$cmp', { x: { $cmp: ['$total', 100] } }, [
    { no: 'o1', x: 1 },
    { no: 'o2', x: -1 },
  ]),

  // Conditionals.
  computed('orders', '$cond array form', { x: { $cond: [{ $gte: ['$total', 100] }, 'big', 'small'] } }, [
    { no: 'o1', x: 'big' },
    { no: 'o2', x: 'small' },
    { no: 'o4', x: 'big' },
  ]),
  computed(
    'orders',
    '$cond object form',
    { x: { $cond: { if: { $eq: ['$status', 'paid'] }, then: 'yes', else: 'no' } } },
    [
      { no: 'o1', x: 'yes' },
      { no: 'o2', x: 'no' },
    ],
  ),
  computed('orders', '$ifNull replaces null and missing', { x: { $ifNull: ['$discount', 0] } }, [
    { no: 'o1', x: 5 },
    { no: 'o2', x: 0 },
    { no: 'o3', x: 0 },
  ]),
  computed(
    'orders',
    '$ifNull with several expressions',
    { x: { $ifNull: ['$discount', '$priority', 'none'] } },
    [
      { no: 'o1', x: 5 },
      { no: 'o2', x: 'high' },
      { no: 'o6', x: 'none' },
      { no: 'o9', x: 'none' },
    ],
  ),
  computed(
    'orders',
    '$switch',
    {
      x: {
        $switch: {
          branches: [
            { case: { $lt: ['$total', 20] }, then: 'low' },
            { case: { $lt: ['$total', 100] }, then: 'mid' },
          ],
          default: 'high',
        },
      },
    },
    [
      { no: 'o3', x: 'low' },
      { no: 'o2', x: 'mid' },
      { no: 'o4', x: 'high' },
    ],
  ),
  computed(
    'orders',
    '$let',
    {
      x: {
        $let: { vars: { t: '$total', d: { $ifNull: ['$discount', 0] } }, in: { $subtract: ['$$t', '$$d'] } },
      },
    },
    [
      { no: 'o1', x: 115.5 },
      { no: 'o2', x: 40 },
    ],
  ),
  computed(
    'customers',
    '$and, $or, $not with missing as false',
    {
      gold: { $and: ['$vip', { $eq: ['$tier', 'gold'] }] },
      either: { $or: ['$vip', { $eq: ['$tier', 'gold'] }] },
      not: { $not: ['$vip'] },
    },
    [
      { no: 'c1', gold: true, either: true, not: false },
      { no: 'c3', gold: false, either: true, not: true },
      { no: 'c7', gold: false, either: true, not: true },
    ],
  ),
  computed('orders', '$literal keeps a dollar string', { x: { $literal: '$total' } }, [
    { no: 'o1', x: '$total' },
  ]),

  // Strings.
  computed('orders', '$concat', { x: { $concat: ['$no', '-', '$status'] } }, [
    { no: 'o1', x: 'o1-paid' },
    { no: 'o4', x: 'o4-cancelled' },
  ]),
  computed('orders', '$concat with missing is null', { x: { $concat: ['$no', '$notes'] } }, [
    { no: 'o1', x: null },
    { no: 'o6', x: 'o6phone order' },
    { no: 'o12', x: 'o12' },
  ]),
  computed(
    'orders',
    '$toUpper, null becomes the empty string',
    { s: { $toUpper: '$status' }, c: { $toUpper: '$customer' } },
    [
      { no: 'o1', s: 'PAID', c: 'C1' },
      { no: 'o6', s: 'NEW', c: '' },
      { no: 'o7', s: 'PAID', c: '' },
    ],
  ),
  computed('customers', '$toLower', { x: { $toLower: '$email' } }, [
    { no: 'c4', x: 'dan@example.com' },
    { no: 'c1', x: 'ada@example.com' },
  ]),
  computed('orders', '$substrCP', { x: { $substrCP: ['$status', 0, 3] } }, [{ no: 'o1', x: 'pai' }]),
  computed(
    'customers',
    '$strLenCP and $strLenBytes',
    { cp: { $strLenCP: '$name' }, bytes: { $strLenBytes: '$name' } },
    [
      { no: 'c3', cp: 5, bytes: 6 },
      { no: 'c1', cp: 3, bytes: 3 },
    ],
  ),
  computed('orders', '$trim', { x: { $trim: { input: { $concat: ['  ', '$no', ' '] } } } }, [
    { no: 'o1', x: 'o1' },
  ]),
  computed('orders', '$split', { x: { $split: ['$address.zip', '0'] } }, [{ no: 'o1', x: ['75', '', '1'] }]),
  computed('orders', '$toString of numbers', { x: { $toString: '$total' } }, [
    { no: 'o2', x: '40' },
    { no: 'o1', x: '120.5' },
  ]),
  computed('orders', '$regexMatch', { x: { $regexMatch: { input: '$status', regex: '^s' } } }, [
    { no: 'o1', x: false },
    { no: 'o2', x: true },
  ]),
  computed(
    'orders',
    '$replaceAll',
    { x: { $replaceAll: { input: '$status', find: 'p', replacement: 'P' } } },
    [
      { no: 'o1', x: 'Paid' },
      { no: 'o8', x: 'shiPPed' },
    ],
  ),
  computed('orders', '$strcasecmp', { x: { $strcasecmp: ['$status', 'PAID'] } }, [
    { no: 'o1', x: 0 },
    { no: 'o2', x: 1 },
  ]),
  computed('customers', '$indexOfCP', { x: { $indexOfCP: ['$email', '@'] } }, [{ no: 'c1', x: 3 }]),

  // Arrays.
  computed('orders', '$size', { x: { $size: '$items' } }, [
    { no: 'o1', x: 2 },
    { no: 'o6', x: 0 },
    { no: 'o8', x: 2 },
  ]),
  computed('orders', '$arrayElemAt, out of range is missing', { x: { $arrayElemAt: ['$items.sku', 0] } }, [
    { no: 'o1', x: 'p1' },
    { no: 'o8', x: 'p1' },
    { no: 'o6' },
  ]),
  computed('orders', '$arrayElemAt with a negative index', { x: { $arrayElemAt: ['$tags', -1] } }, [
    { no: 'o1', x: 'express' },
    { no: 'o4', x: 'fragile' },
    { no: 'o8', x: 'express' },
  ]),
  computed(
    'orders',
    '$map',
    { x: { $map: { input: '$items', as: 'i', in: { $multiply: ['$$i.qty', '$$i.price'] } } } },
    [
      { no: 'o1', x: [20, 100.5] },
      { no: 'o8', x: [30, 45.25] },
      { no: 'o6', x: [] },
    ],
  ),
  computed('orders', '$filter', { x: { $filter: { input: '$items', cond: { $gte: ['$$this.qty', 2] } } } }, [
    { no: 'o1', x: [{ sku: 'p1', qty: 2, price: 10 }] },
    { no: 'o8', x: [{ sku: 'p1', qty: 3, price: 10 }] },
    { no: 'o3', x: [] },
  ]),
  computed(
    'orders',
    '$reduce',
    {
      x: {
        $reduce: {
          input: '$items',
          initialValue: 0,
          in: { $add: ['$$value', { $multiply: ['$$this.qty', '$$this.price'] }] },
        },
      },
    },
    [
      { no: 'o1', x: 120.5 },
      { no: 'o8', x: 75.25 },
      { no: 'o6', x: 0 },
    ],
  ),
  computed(
    'orders',
    '$sum, $max and $avg of an array in $project',
    { s: { $sum: '$items.qty' }, m: { $max: '$items.price' }, a: { $avg: '$items.qty' } },
    [
      { no: 'o1', s: 3, m: 100.5, a: 1.5 },
      { no: 'o8', s: 4, m: 45.25, a: 2 },
      { no: 'o6', s: 0, m: null, a: null },
    ],
  ),
  computed(
    'customers',
    '$avg and $max of an array, empty or missing gives null',
    { a: { $avg: '$scores' }, m: { $max: '$scores' } },
    [
      { no: 'c1', a: (90 + 75 + 88) / 3, m: 90 },
      { no: 'c3', a: null, m: null },
      { no: 'c5', a: null, m: null },
    ],
  ),
  computed('orders', '$in', { x: { $in: ['gift', '$tags'] } }, [
    { no: 'o1', x: true },
    { no: 'o2', x: false },
    { no: 'o3', x: false },
  ]),
  computed('orders', '$indexOfArray', { x: { $indexOfArray: ['$tags', 'express'] } }, [
    { no: 'o1', x: 1 },
    { no: 'o4', x: 0 },
    { no: 'o2', x: -1 },
  ]),
  computed('orders', '$concatArrays, missing is null', { x: { $concatArrays: ['$tags', ['x']] } }, [
    { no: 'o1', x: ['gift', 'express', 'x'] },
    { no: 'o6', x: null },
  ]),
  computed(
    'orders',
    '$slice',
    { a: { $slice: ['$tags', 1] }, b: { $slice: ['$tags', -2] }, c: { $slice: ['$tags', 1, 1] } },
    [{ no: 'o8', a: ['gift'], b: ['fragile', 'express'], c: ['fragile'] }],
  ),
  computed('orders', '$reverseArray', { x: { $reverseArray: '$tags' } }, [
    { no: 'o8', x: ['express', 'fragile', 'gift'] },
  ]),
  computed('orders', '$sortArray', { x: { $sortArray: { input: '$tags', sortBy: 1 } } }, [
    { no: 'o8', x: ['express', 'fragile', 'gift'] },
  ]),
  computed(
    'orders',
    '$sortArray of documents by a field',
    { x: { $sortArray: { input: '$items', sortBy: { price: -1 } } } },
    [
      {
        no: 'o8',
        x: [
          { sku: 'p6', qty: 1, price: 45.25 },
          { sku: 'p1', qty: 3, price: 10 },
        ],
      },
    ],
  ),
  computed('orders', '$first and $last of arrays', { f: { $first: '$tags' }, l: { $last: '$items.sku' } }, [
    { no: 'o8', f: 'gift', l: 'p6' },
  ]),
  computed('orders', '$isArray', { x: { $isArray: '$tags' } }, [
    { no: 'o1', x: true },
    { no: 'o12', x: false },
  ]),
  computed(
    'orders',
    '$setIntersection (sorted)',
    { x: { $sortArray: { input: { $setIntersection: ['$tags', ['express', 'gift', 'x']] }, sortBy: 1 } } },
    [
      { no: 'o8', x: ['express', 'gift'] },
      { no: 'o2', x: [] },
    ],
  ),
  computed(
    'orders',
    '$range, $zip and $anyElementTrue on literals',
    {
      r: { $range: [0, 5, 2] },
      z: {
        $zip: {
          inputs: [
            ['a', 'b'],
            [1, 2],
          ],
        },
      },
      t: { $anyElementTrue: [[false, 0, 1]] },
      f: { $allElementsTrue: [[true, 0]] },
    },
    [
      {
        no: 'o1',
        r: [0, 2, 4],
        z: [
          ['a', 1],
          ['b', 2],
        ],
        t: true,
        f: false,
      },
    ],
  ),

  // Objects and types.
  computed('orders', '$objectToArray', { x: { $objectToArray: '$address' } }, [
    { no: 'o2', x: [{ k: 'city', v: 'Lyon' }] },
  ]),
  computed(
    'orders',
    '$arrayToObject',
    {
      x: {
        $arrayToObject: {
          $literal: [
            ['a', 1],
            ['b', 2],
          ],
        },
      },
    },
    [{ no: 'o1', x: { a: 1, b: 2 } }],
  ),
  computed(
    'orders',
    '$mergeObjects ignores missing',
    { x: { $mergeObjects: ['$address', { country: 'X' }] } },
    [
      { no: 'o2', x: { city: 'Lyon', country: 'X' } },
      { no: 'o6', x: { country: 'X' } },
    ],
  ),
  computed('orders', '$getField', { x: { $getField: { field: 'city', input: '$address' } } }, [
    { no: 'o1', x: 'Paris' },
  ]),
  computed(
    'orders',
    '$type of non-numeric values and missing',
    {
      s: { $type: '$status' },
      d: { $type: '$shippedAt' },
      t: { $type: '$tags' },
      a: { $type: '$address' },
      x: { $type: '$nope' },
      p: { $type: '$priority' },
      n: { $type: '$discount' },
    },
    [
      { no: 'o2', s: 'string', d: 'date', t: 'array', a: 'object', x: 'missing', p: 'string', n: 'null' },
      { no: 'o4', s: 'string', d: 'missing', t: 'array', a: 'object', x: 'missing', p: 'bool', n: 'int' },
    ],
    'integral JSON numbers are int32 in MongoDB: $type gives int',
  ),
  computed('orders', '$toBool', { x: { $toBool: '$discount' } }, [
    { no: 'o1', x: true },
    { no: 'o7', x: false },
    { no: 'o2', x: null },
  ]),
  computed(
    'orders',
    '$convert with onNull',
    { x: { $convert: { input: '$priority', to: 'string', onError: 'bad', onNull: 'none' } } },
    [
      { no: 'o8', x: '1' },
      { no: 'o6', x: 'none' },
      { no: 'o4', x: 'true' },
    ],
  ),
  computed('orders', '$toDouble of a numeric string', { x: { $toDouble: '$priority' } }, [
    { no: 'o8', x: 1 },
  ]),

  // Dates (UTC).
  computed(
    'orders',
    'date parts',
    {
      y: { $year: '$createdAt' },
      m: { $month: '$createdAt' },
      d: { $dayOfMonth: '$createdAt' },
      h: { $hour: '$createdAt' },
      mi: { $minute: '$createdAt' },
      dow: { $dayOfWeek: '$createdAt' },
      doy: { $dayOfYear: '$createdAt' },
    },
    [
      { no: 'o1', y: 2024, m: 1, d: 5, h: 10, mi: 0, dow: 6, doy: 5 },
      { no: 'o12', y: 2024, m: 6, d: 18, h: 14, mi: 20, dow: 3, doy: 170 },
    ],
  ),
  computed(
    'orders',
    '$week and $isoWeek',
    { w: { $week: '$createdAt' }, iw: { $isoWeek: '$createdAt' }, idow: { $isoDayOfWeek: '$createdAt' } },
    [
      { no: 'o1', w: 0, iw: 1, idow: 5 },
      { no: 'o12', w: 24, iw: 25, idow: 2 },
    ],
  ),
  computed(
    'orders',
    '$dateToString',
    { x: { $dateToString: { format: '%Y-%m-%d %H:%M:%S', date: '$createdAt' } } },
    [
      { no: 'o1', x: '2024-01-05 10:00:00' },
      { no: 'o10', x: '2024-05-20 23:59:59' },
    ],
  ),
  computed(
    'orders',
    '$dateToString of null is null',
    { x: { $dateToString: { format: '%Y', date: '$shippedAt' } } },
    [
      { no: 'o3', x: null },
      { no: 'o4', x: null },
    ],
  ),
  computed(
    'orders',
    '$dateTrunc to month and week',
    {
      m: { $dateTrunc: { date: '$createdAt', unit: 'month' } },
      w: { $dateTrunc: { date: '$createdAt', unit: 'week' } },
    },
    [{ no: 'o12', m: date('2024-06-01T00:00:00Z'), w: date('2024-06-16T00:00:00Z') }],
  ),
  computed(
    'orders',
    '$dateAdd',
    {
      d: { $dateAdd: { startDate: '$createdAt', unit: 'day', amount: 3 } },
      m: { $dateAdd: { startDate: '$createdAt', unit: 'month', amount: 1 } },
    },
    [
      { no: 'o1', d: date('2024-01-08T10:00:00Z'), m: date('2024-02-05T10:00:00Z') },
      { no: 'o11', d: date('2024-06-04T07:00:00Z'), m: date('2024-07-01T07:00:00Z') },
    ],
  ),
  computed(
    'orders',
    '$dateDiff counts unit boundaries',
    {
      d: { $dateDiff: { startDate: '$createdAt', endDate: '$shippedAt', unit: 'day' } },
      h: { $dateDiff: { startDate: '$createdAt', endDate: '$shippedAt', unit: 'hour' } },
    },
    [
      { no: 'o1', d: 2, h: 54 },
      { no: 'o2', d: 2, h: 42 },
      { no: 'o3', d: null, h: null },
    ],
  ),
  computed('orders', '$dateFromString', { x: { $dateFromString: { dateString: '2024-02-29T12:00:00Z' } } }, [
    { no: 'o1', x: date('2024-02-29T12:00:00Z') },
  ]),

  // Projection semantics.
  unordered(
    'orders',
    '$project nested inclusion keeps _id',
    [{ $match: { no: { $in: ['o1', 'o6'] } } }, { $project: { no: 1, 'address.city': 1 } }],
    [
      { _id: idOf('orders', 1), no: 'o1', address: { city: 'Paris' } },
      { _id: idOf('orders', 6), no: 'o6' },
    ],
  ),
  unordered(
    'orders',
    '$project exclusion',
    [{ $match: { no: 'o2' } }, { $project: { items: 0, tags: 0, address: 0, createdAt: 0, shippedAt: 0 } }],
    [without(ord(2), 'items', 'tags', 'address', 'createdAt', 'shippedAt')],
  ),
  unordered(
    'orders',
    '$project nested exclusion',
    [{ $match: { no: 'o1' } }, { $project: { _id: 0, 'address.zip': 0, items: 0 } }],
    [{ ...without(ord(1), '_id', 'items'), address: { city: 'Paris' } }],
  ),
  unordered(
    'orders',
    '$project of a missing path leaves the field out',
    [{ $match: { no: { $in: ['o1', 'o6'] } } }, { $project: { _id: 0, no: 1, city: '$address.city' } }],
    [{ no: 'o1', city: 'Paris' }, { no: 'o6' }],
  ),
  unordered(
    'orders',
    '$project inclusion through an array of documents',
    [{ $match: { no: 'o8' } }, { $project: { _id: 0, 'items.sku': 1 } }],
    [{ items: [{ sku: 'p1' }, { sku: 'p6' }] }],
  ),
  unordered(
    'orders',
    '$project field: true is an inclusion',
    [{ $match: { no: { $in: ['o1', 'o6'] } } }, { $project: { _id: 0, no: 1, notes: true } }],
    [{ no: 'o1' }, { no: 'o6', notes: 'phone order' }],
  ),
  unordered(
    'orders',
    '$project a field path through an array gives an array',
    [{ $match: { no: 'o1' } }, { $project: { _id: 0, skus: '$items.sku' } }],
    [{ skus: ['p1', 'p2'] }],
  ),
  unordered(
    'orders',
    '$addFields overwrites and reads the input document',
    [
      { $match: { no: 'o2' } },
      { $addFields: { total: 0, was: '$total' } },
      { $project: { _id: 0, total: 1, was: 1 } },
    ],
    [{ total: 0, was: 40 }],
  ),
  unordered(
    'orders',
    '$set a nested field creates the parent',
    [
      { $match: { no: { $in: ['o1', 'o6'] } } },
      { $set: { 'address.country': 'FR' } },
      { $project: { _id: 0, no: 1, address: 1 } },
    ],
    [
      { no: 'o1', address: { city: 'Paris', zip: '75001', country: 'FR' } },
      { no: 'o6', address: { country: 'FR' } },
    ],
  ),
  unordered(
    'orders',
    '$set a path into an array of documents sets every element',
    [{ $match: { no: 'o1' } }, { $set: { 'items.flag': true } }, { $project: { _id: 0, items: 1 } }],
    [
      {
        items: [
          { sku: 'p1', qty: 2, price: 10, flag: true },
          { sku: 'p2', qty: 1, price: 100.5, flag: true },
        ],
      },
    ],
  ),
  unordered(
    'orders',
    '$set twice, the second sees the first',
    [
      { $match: { no: 'o2' } },
      { $set: { a: { $add: ['$total', 1] } } },
      { $set: { b: { $multiply: ['$a', 2] } } },
      { $project: { _id: 0, a: 1, b: 1 } },
    ],
    [{ a: 41, b: 82 }],
  ),
  unordered(
    'orders',
    '$addFields with $$REMOVE drops the field',
    [
      { $match: { no: { $in: ['o1', 'o2'] } } },
      { $addFields: { discount: { $cond: [{ $eq: ['$discount', null] }, '$$REMOVE', '$discount'] } } },
      { $project: { _id: 0, no: 1, discount: 1 } },
    ],
    [{ no: 'o1', discount: 5 }, { no: 'o2' }],
  ),
  unordered(
    'orders',
    '$unset several fields',
    [{ $match: { no: 'o2' } }, { $unset: ['items', 'tags', 'address', 'createdAt', 'shippedAt'] }],
    [without(ord(2), 'items', 'tags', 'address', 'createdAt', 'shippedAt')],
  ),
  unordered(
    'orders',
    '$unset a nested field',
    [{ $match: { no: 'o1' } }, { $unset: 'address.zip' }, { $project: { _id: 0, address: 1 } }],
    [{ address: { city: 'Paris' } }],
  ),
  unordered(
    'customers',
    '$project a nested document and a computed field together',
    [
      { $match: { no: 'c8' } },
      {
        $project: {
          _id: 0,
          geo: '$address.geo',
          label: { $concat: ['$name', ' (', '$address.country', ')'] },
        },
      },
    ],
    [{ geo: { lat: 35.68, lng: 139.76 }, label: 'Hana (JP)' }],
  ),
  unordered(
    'customers',
    '$addFields does not change the source for later stages of another document',
    [
      { $sort: { no: 1 } },
      { $limit: 2 },
      { $set: { 'address.city': { $toUpper: '$address.city' } } },
      { $project: { _id: 0, c: '$address.city' } },
    ],
    [{ c: 'PARIS' }, { c: 'LYON' }],
  ),
  unordered(
    'orders',
    '$project computed literal number and boolean via $literal',
    [{ $match: { no: 'o1' } }, { $project: { _id: 0, one: { $literal: 1 }, yes: { $literal: true } } }],
    [{ one: 1, yes: true }],
  ),
  unordered(
    'customers',
    'expressions over a document with missing fields',
    [
      { $match: { no: 'c5' } },
      {
        $project: { _id: 0, n: { $ifNull: ['$email', 'none'] }, s: { $size: { $ifNull: ['$scores', []] } } },
      },
    ],
    [{ n: 'none', s: 0 }],
  ),
  unordered(
    'customers',
    '$project whole source document under a new name',
    [{ $match: { no: 'c5' } }, { $project: { _id: 0, doc: '$$ROOT' } }],
    [{ doc: customers[4] }],
  ),
];
