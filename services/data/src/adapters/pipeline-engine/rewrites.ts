import { compareValues, isPlainObject } from './bson';
import { engineErrors } from './budget';
import { specObject, type Stage } from './context';

const literal = (v: unknown) => ({ $literal: v });

/** The `_id` of the group of values outside every `$bucket` boundary when there is no default. */
export const OUTSIDE_BOUNDARIES = '\u0000outside $bucket boundaries\u0000';

function typeBracket(v: unknown): string {
  if (typeof v === 'number') return 'number';
  if (v instanceof Date) return 'date';
  return typeof v;
}

/**
 * `$bucket` as MongoDB itself desugars it: a `$group` keyed by the bucket whose [lower, upper)
 * range holds the value (or the default), then a `$sort` on `_id`. mingo's own `$bucket` puts a
 * value equal to an inner boundary into the lower bucket and emits empty buckets.
 */
export function bucketAsGroup(rawSpec: unknown): Stage[] {
  const spec = specObject(rawSpec, '$bucket');
  const { groupBy, boundaries, output } = spec;
  if (groupBy === undefined) throw engineErrors.failed('$bucket needs groupBy');
  if (!Array.isArray(boundaries) || boundaries.length < 2)
    throw engineErrors.failed('$bucket needs at least two boundaries');
  const bounds = boundaries as unknown[];
  for (let i = 1; i < bounds.length; i++) {
    if (typeBracket(bounds[i]) !== typeBracket(bounds[0]))
      throw engineErrors.failed('$bucket boundaries must all be of the same type');
    if (compareValues(bounds[i - 1], bounds[i]) >= 0)
      throw engineErrors.failed('$bucket boundaries must be in ascending order');
  }
  const hasDefault = 'default' in spec;
  if (
    hasDefault &&
    typeBracket(spec.default) === typeBracket(bounds[0]) &&
    compareValues(spec.default, bounds[0]) >= 0 &&
    compareValues(spec.default, bounds[bounds.length - 1]) < 0
  )
    throw engineErrors.failed('$bucket default must be below the lowest or at or above the highest boundary');
  if (output !== undefined && !isPlainObject(output))
    throw engineErrors.failed('$bucket.output must be an object');

  const branches = bounds.slice(0, -1).map((lower, i) => ({
    case: { $and: [{ $gte: [groupBy, literal(lower)] }, { $lt: [groupBy, literal(bounds[i + 1])] }] },
    then: literal(lower),
  }));
  // Without a default, MongoDB fails on a value outside the boundaries; mingo's $switch would give
  // null, so such values are keyed by a marker the runner turns into the error.
  const key = { $switch: { branches, default: literal(hasDefault ? spec.default : OUTSIDE_BOUNDARIES) } };
  return [{ $group: { _id: key, ...(output ?? { count: { $sum: 1 } }) } }, { $sort: { _id: 1 } }];
}

/** `$sortByCount` as documented: a `$group` counting per value, sorted by count descending. */
export function sortByCountAsGroup(expr: unknown): Stage[] {
  return [{ $group: { _id: expr, count: { $sum: 1 } } }, { $sort: { count: -1 } }];
}
