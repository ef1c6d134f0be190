import fc from 'fast-check';
import { isAppError } from '@baas/common';
import {
  anyPipeline,
  containsBlocked,
  countingPipeline,
  hostilePipeline,
  operatorSoup,
  propertyParams,
} from '../../../test/property/grammar';
import { validatePipeline } from './validate-pipeline';

/**
 * Properties of the pipeline validator over generated inputs (fixed seed, see grammar.ts):
 * 3,000 + 1,000 valid pipelines, 3,000 hostile ones and 3,000 fuzzed JSON trees = 10,000 cases
 * a run in this file alone.
 */
function outcome(pipeline: unknown): { ok: true; targets: Set<string> } | { ok: false; status: number } {
  try {
    return { ok: true, targets: validatePipeline(pipeline).targets };
  } catch (e) {
    // Anything but an AppError would be a 500 at the edge: fail the property with it.
    if (!isAppError(e)) throw e;
    return { ok: false, status: e.status };
  }
}

/** The collections a generated pipeline names in its joins, found by a walk of the whole tree. */
function joinTargets(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => joinTargets(x, out));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if ((k === '$lookup' || k === '$graphLookup') && typeof (x as { from?: unknown }).from === 'string')
        out.add((x as { from: string }).from);
      if (k === '$unionWith') out.add(typeof x === 'string' ? x : (x as { coll: string }).coll);
      joinTargets(x, out);
    }
  return out;
}

describe('pipeline validator, property-based', () => {
  it('accepts every pipeline of the allowed grammar and reports exactly the collections it joins (3,000 cases)', () => {
    fc.assert(
      fc.property(anyPipeline, ({ pipeline }) => {
        const r = outcome(pipeline);
        expect(r).toMatchObject({ ok: true });
        if (r.ok) expect([...r.targets].sort()).toEqual([...joinTargets(pipeline)].sort());
      }),
      propertyParams(3000),
    );
  });

  it('accepts counting pipelines of narrowing stages (1,000 cases)', () => {
    fc.assert(
      fc.property(countingPipeline, ({ pipeline }) => {
        expect(outcome(pipeline)).toMatchObject({ ok: true });
      }),
      propertyParams(1000),
    );
  });

  it('refuses with 400 every pipeline carrying a blocked operator, variable, key or join target at any depth (3,000 cases)', () => {
    fc.assert(
      fc.property(hostilePipeline, ({ pipeline }) => {
        expect(outcome(pipeline)).toEqual({ ok: false, status: 400 });
      }),
      propertyParams(3000),
    );
  });

  it('on fuzzed JSON answers either accepted or 400, and never accepts a tree holding a blocked key (3,000 cases)', () => {
    fc.assert(
      fc.property(fc.oneof(operatorSoup, fc.array(operatorSoup, { maxLength: 5 })), (input) => {
        const r = outcome(input);
        if (r.ok) expect(containsBlocked(input)).toBe(false);
        else expect(r.status).toBe(400);
      }),
      propertyParams(3000),
    );
  });
});
